import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
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
 */
export class SigV4Auth implements UpstreamAuth {
  readonly #signer: SignatureV4;

  constructor(
    slot: ProviderSlot,
    region: string,
    credentials: AwsCredentialSource = fromNodeProviderChain(),
  ) {
    const source = () => fromCredentialSource(slot, 'the AWS credential chain', credentials);
    this.#signer = new SignatureV4({ service: SIGNING_SERVICE, region, credentials: source, sha256: Sha256 });
  }

  async headers(request: SignableRequest): Promise<Record<string, string>> {
    const { url } = request;
    const signed = await this.#signer.sign({
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
