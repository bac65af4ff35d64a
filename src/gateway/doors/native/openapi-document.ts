import type { SwaggerOptions } from '@fastify/swagger';

export const GATEWAY_API_VERSION = '1.0.0';

/** The OpenAPI 3.1 document of surface A, generated from the route schemas by @fastify/swagger. */
export function openApiOptions(publicUrl: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Inference Gateway',
        version: GATEWAY_API_VERSION,
        description:
          'Chat completion with tool calling, embeddings and schema-validated JSON across three provider slots, with usage, cost and latency on every answer.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          gatewayApp: {
            type: 'apiKey',
            in: 'header',
            name: 'x-gateway-app',
            description: 'Registered application name',
          },
          gatewaySecret: {
            type: 'apiKey',
            in: 'header',
            name: 'x-gateway-secret',
            description: 'Secret paired with the app',
          },
          appBearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              '`Authorization: Bearer <app>:<secret>` (split at the first colon), as OpenAI clients send it',
          },
          appApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: '`<app>:<secret>` (split at the first colon), as Anthropic clients send it',
          },
        },
      },
      // Either both native headers together (one requirement object naming both schemes), or
      // one combined key; several forms in one request must name the same credential.
      security: [{ gatewayApp: [], gatewaySecret: [] }, { appBearer: [] }, { appApiKey: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`),
    },
  };
}
