import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium: `apt-get install chromium` (.ci/run installs it when missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium that reaches for nothing on its own: no updates, sync or background fetches. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-default-apps',
      '--disable-extensions',
    ],
  });
}

/**
 * A browser context whose every request is checked: one to a host other than this machine is
 * aborted and remembered in `foreign`, so a test can assert that the page needs no internet.
 */
export async function localOnlyContext(
  browser: Browser,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; foreign: string[] }> {
  const context = await browser.newContext(options);
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.protocol === 'data:';
    if (local) return route.continue();
    foreign.push(url.href);
    return route.abort();
  });
  return { context, foreign };
}
