import type { IncomingHttpHeaders } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** Known test credentials a cloud mock accepts (never real ones). */
export const TEST_AWS_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'test-session-token',
} as const;

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/**
 * Checks a request's SigV4 signature as AWS does: the Authorization header is parsed, the request
 * is signed again with the known secret at the same instant over the headers it says it signed, the
 * raw path and query and the body's bytes, and the two signatures must be equal. Answers why not,
 * or undefined when the signature holds.
 */
export async function sigV4Problem(
  method: string,
  rawPath: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  expected: { region: string; service: string },
): Promise<string | undefined> {
  const match = AUTHORIZATION.exec(String(headers['authorization'] ?? ''));
  if (match === null) return 'no SigV4 Authorization header';
  const [, accessKeyId, , region, service, signedList, signature] = match as unknown as string[];
  if (accessKeyId !== TEST_AWS_CREDENTIALS.accessKeyId) return `unknown access key ${accessKeyId}`;
  if (region !== expected.region) return `signed for region ${region}`;
  if (service !== expected.service) return `signed for service ${service}`;
  if (headers['x-amz-security-token'] !== TEST_AWS_CREDENTIALS.sessionToken) return 'wrong session token';
  const amzDate = String(headers['x-amz-date'] ?? '');
  const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (at === null) return 'no x-amz-date';
  const signingDate = new Date(`${at[1]}-${at[2]}-${at[3]}T${at[4]}:${at[5]}:${at[6]}Z`);
  if (Math.abs(Date.now() - signingDate.getTime()) > 5 * 60_000) return 'signature too old';
  const signed: Record<string, string> = {};
  for (const name of (signedList as string).split(';')) {
    const value = headers[name];
    if (value === undefined) return `signed header ${name} is missing`;
    signed[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const url = new URL(rawPath, `http://${headers['host']}`);
  const signer = new SignatureV4({
    service: service as string,
    region: region as string,
    credentials: TEST_AWS_CREDENTIALS,
    sha256: Sha256,
  });
  const again = await signer.sign(
    {
      method,
      protocol: 'http:',
      hostname: url.hostname,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: signed,
      body,
    },
    { signingDate, signableHeaders: new Set(Object.keys(signed)) },
  );
  const recomputed = /Signature=([0-9a-f]{64})/.exec(String(again.headers['authorization']))?.[1];
  return recomputed === signature ? undefined : 'signature does not match';
}
