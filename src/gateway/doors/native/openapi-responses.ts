/** Error responses every authenticated route documents; all use the Error envelope. */
const envelope = (description: string) => ({ description, $ref: 'Error#' });

export const errorResponses = {
  400: envelope('Invalid request (invalid_request with field paths, invalid_json, unsupported_capability)'),
  401: envelope('Missing or invalid app credentials'),
  413: envelope('Request body too large'),
  415: envelope('Request body is not JSON'),
  429: envelope('Rate limited; see Retry-After'),
  500: envelope('Internal error'),
  502: envelope('Upstream error, or json_validation_failed'),
  503: envelope('No provider available'),
  504: envelope('Upstream timeout'),
} as const;
