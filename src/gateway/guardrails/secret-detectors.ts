import { collectMatches, type Detector, type Finding } from './finding.ts';

/*
 * The built-in secret detectors (CONTRACT 6.6): each is a cheap literal pre-filter (`includes`,
 * which V8 runs as a vectorised search) and, only where the literal occurs, one global regular
 * expression. Every pattern starts with a literal and its repetitions are bounded or end the
 * match, so a failed attempt costs at most the bound: V8's backtracking engine runs them in
 * linear time. Callers' own patterns never run on V8 (custom-detectors.ts: RE2).
 */

/** Not preceded by a character a token is made of: `xsk-…` is not an OpenAI key. */
const START = '(?<![A-Za-z0-9_-])';
/** Not followed by one: a key is whole or it is something else. */
const END = '(?![A-Za-z0-9_-])';

const AWS_ACCESS_KEY = new RegExp(`${START}(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}${END}`, 'g');
const GITHUB_TOKEN = new RegExp(
  `${START}(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})${END}`,
  'g',
);
const ANTHROPIC_KEY = new RegExp(`${START}sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{32,400}${END}`, 'g');
/** `sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-`; never an Anthropic key (`sk-ant-`). */
const OPENAI_KEY = new RegExp(`${START}sk-(?!ant-)[A-Za-z0-9_-]{32,400}${END}`, 'g');
const GOOGLE_API_KEY = new RegExp(`${START}AIza[0-9A-Za-z_-]{35}${END}`, 'g');
const SLACK_TOKEN = new RegExp(
  `${START}(?:xox[abposr]-[0-9A-Za-z-]{10,250}|xapp-[0-9]-[0-9A-Za-z-]{10,250})${END}|https://hooks\\.slack\\.com/services/T[A-Z0-9]{6,20}/B[A-Z0-9]{6,20}/[A-Za-z0-9]{16,40}`,
  'g',
);
/** Three base64url segments, the first two JSON objects (`eyJ` is `{"` encoded). */
const JWT = new RegExp(
  `${START}eyJ[A-Za-z0-9_-]{8,4096}\\.eyJ[A-Za-z0-9_-]{8,8192}\\.[A-Za-z0-9_-]{8,1024}${END}`,
  'g',
);

export const detectAwsAccessKey: Detector = (text, into) => {
  if (text.includes('AKIA') || text.includes('ASIA') || text.includes('ABIA') || text.includes('ACCA'))
    collectMatches(AWS_ACCESS_KEY, 'AWS_ACCESS_KEY', text, into);
};

export const detectGithubToken: Detector = (text, into) => {
  if (text.includes('gh') || text.includes('github_pat_'))
    collectMatches(GITHUB_TOKEN, 'GITHUB_TOKEN', text, into);
};

export const detectOpenAIKey: Detector = (text, into) => {
  if (text.includes('sk-')) collectMatches(OPENAI_KEY, 'OPENAI_KEY', text, into);
};

export const detectAnthropicKey: Detector = (text, into) => {
  if (text.includes('sk-ant-')) collectMatches(ANTHROPIC_KEY, 'ANTHROPIC_KEY', text, into);
};

export const detectGoogleApiKey: Detector = (text, into) => {
  if (text.includes('AIza')) collectMatches(GOOGLE_API_KEY, 'GOOGLE_API_KEY', text, into);
};

export const detectSlackToken: Detector = (text, into) => {
  if (text.includes('xox') || text.includes('xapp-') || text.includes('hooks.slack.com'))
    collectMatches(SLACK_TOKEN, 'SLACK_TOKEN', text, into);
};

export const detectJwt: Detector = (text, into) => {
  if (text.includes('eyJ')) collectMatches(JWT, 'JWT', text, into);
};

const BEGIN = '-----BEGIN ';
const DASHES = '-----';
/** The longest label a PEM header may have here (`ENCRYPTED PRIVATE KEY`, `OPENSSH PRIVATE KEY`). */
const MAX_LABEL = 40;

/**
 * A PEM private key, from its `-----BEGIN … PRIVATE KEY-----` line to its END line; without an
 * END line, to the end of the text (CONTRACT 6.9: cut from its BEGIN line on). Found with
 * `indexOf`, never a pattern over the key's body.
 */
export const detectPrivateKey: Detector = (text, into) => {
  let from = text.indexOf(BEGIN);
  while (from !== -1) {
    const labelStart = from + BEGIN.length;
    const labelEnd = text.indexOf(DASHES, labelStart);
    if (labelEnd === -1) return;
    const label = text.slice(labelStart, labelEnd);
    if (labelEnd - labelStart > MAX_LABEL || !label.endsWith('PRIVATE KEY')) {
      from = text.indexOf(BEGIN, labelStart);
      continue;
    }
    const closing = `-----END ${label}-----`;
    const endAt = text.indexOf(closing, labelEnd + DASHES.length);
    const end = endAt === -1 ? text.length : endAt + closing.length;
    into.push({ start: from, end, type: 'PRIVATE_KEY' });
    if (endAt === -1) return;
    from = text.indexOf(BEGIN, end);
  }
};

/** Every built-in secret detector by the type its mask names. */
export const SECRET_DETECTORS: Readonly<Record<string, Detector>> = {
  AWS_ACCESS_KEY: detectAwsAccessKey,
  GITHUB_TOKEN: detectGithubToken,
  OPENAI_KEY: detectOpenAIKey,
  ANTHROPIC_KEY: detectAnthropicKey,
  GOOGLE_API_KEY: detectGoogleApiKey,
  SLACK_TOKEN: detectSlackToken,
  JWT: detectJwt,
  PRIVATE_KEY: detectPrivateKey,
};

/** The longest text a secret detector needs to see whole (a stream's hold-back window, CONTRACT 6.6). */
export const SECRET_WINDOW = 256;

export type { Finding };
