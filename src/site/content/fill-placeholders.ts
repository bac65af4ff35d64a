import type { PublicUrls } from './site-content.ts';

/**
 * Content is written once but deployed at different addresses: `{{PUBLIC_SITE_URL}}` and
 * `{{PUBLIC_GATEWAY_URL}}` are replaced with the configured public base URLs (no trailing slash).
 * Nothing else is templated, so Markdown that merely contains braces is left alone.
 */
export function fillPlaceholders(text: string, urls: PublicUrls): string {
  return text
    .replaceAll('{{PUBLIC_SITE_URL}}', urls.siteUrl)
    .replaceAll('{{PUBLIC_GATEWAY_URL}}', urls.gatewayUrl);
}
