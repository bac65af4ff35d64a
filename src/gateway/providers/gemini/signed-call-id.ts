import { createHash } from 'node:crypto';
import { MAX_TOOL_CALL_ID_LENGTH } from '../../domain/tool-limits.ts';

/**
 * Gemini 3 refuses a conversation whose function calls come back without the `thoughtSignature`
 * they were returned with, and the signature must go back on the very part that carried it. The
 * gateway keeps no state between requests (any instance may get the next turn), and clients know
 * nothing of Gemini: what they do keep, and echo verbatim, is the tool call's id. So the id the
 * gateway hands out for a signed Gemini call carries the signature, and the request translation
 * takes it out again (to-gemini-request.ts).
 *
 * Layout: `gsig1_` then base64url (no padding) of
 *   [format: 1 byte][id length: 2 bytes, big-endian][id: UTF-8][signature][check: 4 bytes]
 * `format` 0 stores the signature as the bytes its base64 text stands for (what Gemini sends: the
 * API's `bytes` fields are base64), 1 stores the text itself when it is not canonical base64. The
 * check is the first 4 bytes of SHA-256 over everything before it, so that a client's own id that
 * happens to look like one of these decodes to nothing rather than to garbage sent to Gemini. The
 * alphabet is `[A-Za-z0-9_-]`, the one Anthropic's tool_use id pattern allows; OpenAI's 40-character
 * limit is met by the OpenAI adapter, which shortens longer ids (bounded-call-id.ts).
 *
 * Nothing in a decoded id is trusted beyond handing the signature back to Gemini, which verifies it.
 */

export const SIGNED_ID_PREFIX = 'gsig1_';

/**
 * Signatures larger than this are not carried (the call keeps its plain id and is replayed with the
 * documented stand-in, see to-gemini-request.ts): the id travels in every later request of the
 * conversation, twice (the call and its result). Signatures grow with the thinking behind the call:
 * recorded ones measure 249 bytes (gemini-2.5-flash, 52 thought tokens), 730 (gemini-3-pro-preview,
 * 244) and 4169 (gemini-3-pro-preview, 893), about 5 bytes a thought token; 64 KiB covers some
 * 13,000 thought tokens.
 */
export const MAX_CARRIED_SIGNATURE_BYTES = 64 * 1024;

const MAX_ID_BYTES = 0xffff;
const CHECK_BYTES = 4;
const HEADER_BYTES = 3;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface SignedCall {
  /** The call's id as Gemini gave it, or as the gateway settled it (see settleCallId). */
  id: string;
  thoughtSignature: string;
}

/**
 * The id to hand out for a call Gemini signed; the plain id when the signature is empty or too
 * large to carry, or the result would pass MAX_TOOL_CALL_ID_LENGTH.
 */
export function encodeSignedCallId(id: string, thoughtSignature: string): string {
  if (thoughtSignature === '') return id;
  const asBytes = Buffer.from(thoughtSignature, 'base64');
  const canonical = asBytes.length > 0 && asBytes.toString('base64') === thoughtSignature;
  const signature = canonical ? asBytes : Buffer.from(thoughtSignature, 'utf8');
  const idBytes = Buffer.from(id, 'utf8');
  if (signature.length > MAX_CARRIED_SIGNATURE_BYTES || idBytes.length > MAX_ID_BYTES) return id;
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(canonical ? 0 : 1, 0);
  header.writeUInt16BE(idBytes.length, 1);
  const body = Buffer.concat([header, idBytes, signature]);
  const encoded = SIGNED_ID_PREFIX + Buffer.concat([body, checkOf(body)]).toString('base64url');
  return encoded.length > MAX_TOOL_CALL_ID_LENGTH ? id : encoded;
}

/** The id and signature an id of encodeSignedCallId carries; undefined for any other id. */
export function decodeSignedCallId(value: string): SignedCall | undefined {
  if (!value.startsWith(SIGNED_ID_PREFIX)) return undefined;
  const text = value.slice(SIGNED_ID_PREFIX.length);
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // A text that is not the canonical encoding of its bytes was not written by encodeSignedCallId.
  if (bytes.toString('base64url') !== text) return undefined;
  if (bytes.length < HEADER_BYTES + 1 + CHECK_BYTES) return undefined;
  const body = bytes.subarray(0, bytes.length - CHECK_BYTES);
  if (!checkOf(body).equals(bytes.subarray(bytes.length - CHECK_BYTES))) return undefined;
  const format = body.readUInt8(0);
  const idLength = body.readUInt16BE(1);
  const signature = body.subarray(HEADER_BYTES + idLength);
  if (format > 1 || signature.length === 0) return undefined;
  try {
    const id = utf8.decode(body.subarray(HEADER_BYTES, HEADER_BYTES + idLength));
    const thoughtSignature = format === 0 ? signature.toString('base64') : utf8.decode(signature);
    return id === '' ? undefined : { id, thoughtSignature };
  } catch {
    return undefined;
  }
}

function checkOf(body: Buffer): Buffer {
  return createHash('sha256').update(body).digest().subarray(0, CHECK_BYTES);
}
