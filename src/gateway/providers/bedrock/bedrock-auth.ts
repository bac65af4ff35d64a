import type { SignatureV4 } from '@smithy/signature-v4';
import type { ProviderSlot } from '../../../config/config-types.ts';
import { fromCredentialSource, type SignableRequest, type UpstreamAuth } from '../cloud-auth.ts';

/** What SigV4 needs of AWS credentials (the SDK's AwsCredentialIdentity). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export type AwsCredentialSource = () => Promise<AwsCredentials>;

/** The service name Bedrock Runtime's requests are signed for. */
const SIGNING_SERVICE = 'bedrock';

/**
 * SigV4 with the AWS SDK's own signer over credentials from the SDK's default chain (environment,
 * shared config and profile, web identity, container and instance roles; CONTRACT 6.4). The chain
 * is memoised by the SDK and refreshes temporary credentials before they expire, so a call costs
 * a signature, not a credential fetch. Every request is signed, its body hashed.
 *
 * The SDK's signer and credential chain (about 0.6 MB of source: @smithy, @aws-sdk) are imported
 * on the first signature, not at start-up: an instance without a SigV4 Bedrock slot never loads
 * them (docs/performance.md, idle memory).
 */
export class SigV4Auth implements UpstreamAuth {
  readonly #slot: ProviderSlot;
  readonly #region: string;
  readonly #credentials: AwsCredentialSource | undefined;
  #signer: Promise<SignatureV4> | undefined;

  constructor(slot: ProviderSlot, region: string, credentials?: AwsCredentialSource) {
    this.#slot = slot;
    this.#region = region;
    this.#credentials = credentials;
  }

  async #loadSigner(): Promise<SignatureV4> {
    const { sigV4Signer } = await import('./sigv4-signer.ts');
    return sigV4Signer(
      SIGNING_SERVICE,
      this.#region,
      this.#credentials,
      (chain) => () => fromCredentialSource(this.#slot, 'the AWS credential chain', chain),
    );
  }

  async headers(request: SignableRequest): Promise<Record<string, string>> {
    const { url } = request;
    // A failed import is not kept: the next request tries again.
    this.#signer ??= this.#loadSigner().catch((error: unknown) => {
      this.#signer = undefined;
      throw error;
    });
    const signer = await this.#signer;
    const signed = await signer.sign({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...request.headers, host: url.host },
      body: request.body,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(signed.headers)) {
      // undici sets the host itself, from the origin signed here.
      if (name.toLowerCase() !== 'host') headers[name] = value;
    }
    return headers;
  }
}

/** A Bedrock API key: a bearer token instead of SigV4 (CONTRACT 6.4). */
export class BearerAuth implements UpstreamAuth {
  readonly #value: string;

  constructor(token: string) {
    this.#value = `Bearer ${token}`;
  }

  async headers(): Promise<Record<string, string>> {
    return { authorization: this.#value };
  }
}
