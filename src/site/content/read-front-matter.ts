import { parse } from 'yaml';

export interface FrontMatterDocument {
  /** The parsed YAML between the `---` lines: `unknown` until a schema checks it. */
  data: unknown;
  /** Everything after the closing `---` line. */
  body: string;
}

/**
 * Splits a Markdown file into its YAML front matter and body. The front matter must open on the
 * very first line; without it the file is refused (a page without a title or date is a mistake,
 * not a default). Throws an Error whose message says what is wrong; the caller adds the file name.
 */
export function readFrontMatter(text: string): FrontMatterDocument {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') throw new Error('must start with YAML front matter (a line "---")');
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (close === -1) throw new Error('front matter is not closed by a line "---"');
  const yamlText = lines.slice(1, close).join('\n');
  let data: unknown;
  try {
    // Duplicate keys are an error (the yaml default): a repeated `title:` is a typo, not an override.
    data = parse(yamlText, { prettyErrors: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`front matter is not valid YAML: ${message}`);
  }
  return { data: data ?? {}, body: lines.slice(close + 1).join('\n') };
}
