import type { OpenIdConfiguration } from './load-identity-discovery.ts';

/**
 * Members of RFC 8414 §2 and of later registrations in the IANA "OAuth Authorization Server
 * Metadata" registry that an OpenID Provider document commonly carries. Only these are copied, so
 * OIDC-only members (claims, ACR values, ...) do not leak into the OAuth metadata.
 */
const AUTHORIZATION_SERVER_MEMBERS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'registration_endpoint',
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'token_endpoint_auth_methods_supported',
  'token_endpoint_auth_signing_alg_values_supported',
  'service_documentation',
  'ui_locales_supported',
  'op_policy_uri',
  'op_tos_uri',
  'revocation_endpoint',
  'revocation_endpoint_auth_methods_supported',
  'revocation_endpoint_auth_signing_alg_values_supported',
  'introspection_endpoint',
  'introspection_endpoint_auth_methods_supported',
  'introspection_endpoint_auth_signing_alg_values_supported',
  'code_challenge_methods_supported',
  'device_authorization_endpoint',
  'pushed_authorization_request_endpoint',
  'require_pushed_authorization_requests',
  'userinfo_endpoint',
  'end_session_endpoint',
  'tls_client_certificate_bound_access_tokens',
  'mtls_endpoint_aliases',
  'dpop_signing_alg_values_supported',
  'authorization_response_iss_parameter_supported',
] as const;

/** RFC 8414 authorization server metadata derived from the provider's OpenID discovery document. */
export function toAuthorizationServerMetadata(openid: OpenIdConfiguration): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const key of AUTHORIZATION_SERVER_MEMBERS) {
    if (openid[key] !== undefined) metadata[key] = openid[key];
  }
  return metadata;
}

export interface ProtectedResourceFacts {
  /** The resource identifier: PUBLIC_SITE_URL. */
  resource: string;
  resourceName: string;
  documentationUrl?: string;
  policyUrl?: string;
  termsUrl?: string;
}

/** RFC 9728 protected resource metadata: this site, protected by the provider's issuer. */
export function toProtectedResourceMetadata(
  openid: OpenIdConfiguration,
  facts: ProtectedResourceFacts,
): Record<string, unknown> {
  return {
    resource: facts.resource,
    authorization_servers: [openid.issuer],
    // Bearer tokens travel in the Authorization header only: never in a query string or a form body.
    bearer_methods_supported: ['header'],
    resource_name: facts.resourceName,
    ...(facts.documentationUrl === undefined ? {} : { resource_documentation: facts.documentationUrl }),
    ...(facts.policyUrl === undefined ? {} : { resource_policy_uri: facts.policyUrl }),
    ...(facts.termsUrl === undefined ? {} : { resource_tos_uri: facts.termsUrl }),
  };
}
