import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { pageUrl, type SiteContent } from '../content/site-content.ts';
import { type CachedDocument, prepareJsonDocument } from '../documents/cached-document.ts';
import { registerDocumentRoute } from '../documents/register-document-route.ts';
import {
  AuthorizationServerSchema,
  ErrorEnvelopeSchema,
  OpenIdConfigurationSchema,
  ProtectedResourceSchema,
} from './discovery-schemas.ts';
import { toAuthorizationServerMetadata, toProtectedResourceMetadata } from './identity-metadata.ts';
import { loadIdentityDiscovery } from './load-identity-discovery.ts';

export interface IdentityRouteDeps {
  /** IDENTITY_DISCOVERY_FILE; without it the three documents answer 404. */
  identityDiscoveryFile: string | undefined;
  publicSiteUrl: string;
  content: SiteContent;
}

const NOT_PUBLISHED = {
  404: {
    description: 'Not published: this deployment has no identity provider configured',
    content: { 'application/json': { schema: ErrorEnvelopeSchema } },
  },
};

/**
 * The OAuth and OpenID Connect discovery documents, published only when the deployment names
 * its identity provider's discovery document. The file is read and checked here, at start-up.
 */
export function registerIdentityRoutes(app: FastifyInstance, deps: IdentityRouteDeps): void {
  const documents =
    deps.identityDiscoveryFile === undefined ? undefined : buildDocuments(deps, deps.identityDiscoveryFile);
  const routes = [
    {
      path: '/.well-known/openid-configuration',
      operationId: 'openIdConfiguration',
      summary: "OpenID Connect Discovery 1.0: the identity provider's metadata",
      bodySchema: OpenIdConfigurationSchema,
      pick: (set: IdentityDocuments) => set.openid,
    },
    {
      path: '/.well-known/oauth-authorization-server',
      operationId: 'oauthAuthorizationServer',
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
      bodySchema: AuthorizationServerSchema,
      pick: (set: IdentityDocuments) => set.authorizationServer,
    },
    {
      path: '/.well-known/oauth-protected-resource',
      operationId: 'oauthProtectedResource',
      summary: 'OAuth 2.0 protected resource metadata (RFC 9728) of this site',
      bodySchema: ProtectedResourceSchema,
      pick: (set: IdentityDocuments) => set.protectedResource,
    },
  ];
  for (const route of routes) {
    registerDocumentRoute(
      app,
      {
        path: route.path,
        operationId: route.operationId,
        summary: route.summary,
        mediaType: 'application/json',
        bodySchema: route.bodySchema,
        responses: NOT_PUBLISHED,
      },
      () => {
        if (documents === undefined)
          throw new ApiError('not_found', `${route.path} is not published on this site`);
        return route.pick(documents);
      },
    );
  }
}

interface IdentityDocuments {
  openid: CachedDocument;
  authorizationServer: CachedDocument;
  protectedResource: CachedDocument;
}

function buildDocuments(deps: IdentityRouteDeps, file: string): IdentityDocuments {
  const openid = loadIdentityDiscovery(file);
  const { overview, pages } = deps.content;
  const policyUrl = (slug: string) =>
    pages.some((page) => page.slug === slug) ? pageUrl(deps.publicSiteUrl, slug) : undefined;
  const privacy = policyUrl('privacy');
  const terms = policyUrl('terms');
  return {
    openid: prepareJsonDocument(openid),
    authorizationServer: prepareJsonDocument(toAuthorizationServerMetadata(openid)),
    protectedResource: prepareJsonDocument(
      toProtectedResourceMetadata(openid, {
        resource: deps.publicSiteUrl,
        resourceName: overview.name,
        ...(overview.apiDocs.site === undefined ? {} : { documentationUrl: overview.apiDocs.site }),
        ...(privacy === undefined ? {} : { policyUrl: privacy }),
        ...(terms === undefined ? {} : { termsUrl: terms }),
      }),
    ),
  };
}
