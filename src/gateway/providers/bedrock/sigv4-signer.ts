import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialSource } from './bedrock-auth.ts';

/**
 * The AWS SDK's SigV4 signer over `credentials`, or the SDK's default chain when none is given.
 * A module of its own so that bedrock-auth.ts imports it, and with it the SDK, on the first
 * signature: the packages are CommonJS, and in the bundle a package imported with `import()`
 * exposes only its default export, where this module's static imports get the named ones.
 */
export function sigV4Signer(
  service: string,
  region: string,
  credentials: AwsCredentialSource | undefined,
  checked: (source: AwsCredentialSource) => AwsCredentialSource,
): SignatureV4 {
  const source = checked(credentials ?? fromNodeProviderChain());
  return new SignatureV4({ service, region, credentials: source, sha256: Sha256 });
}
