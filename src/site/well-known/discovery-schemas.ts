import { SKILL_NAME_PATTERN } from '../content/content-schemas.ts';
import { AGENT_SKILLS_SCHEMA } from './agent-skills-index.ts';

/** JSON Schemas of the discovery documents, for the OpenAPI document (bodies are pre-serialised). */
const Link = {
  type: 'object',
  required: ['href'],
  properties: {
    href: { type: 'string', format: 'uri' },
    type: { type: 'string' },
    title: { type: 'string' },
  },
};

export const LinksetSchema = {
  type: 'object',
  required: ['linkset'],
  description: 'RFC 9264 linkset; RFC 9727 API catalog profile',
  properties: {
    linkset: {
      type: 'array',
      items: {
        type: 'object',
        required: ['anchor'],
        properties: { anchor: { type: 'string', format: 'uri' } },
        additionalProperties: { type: 'array', items: Link },
      },
    },
  },
};

export const AgentSkillsIndexSchema = {
  type: 'object',
  required: ['$schema', 'skills'],
  description: 'Agent Skills Discovery index, version 0.2.0',
  properties: {
    $schema: { type: 'string', const: AGENT_SKILLS_SCHEMA },
    skills: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type', 'description', 'url', 'digest'],
        properties: {
          name: { type: 'string', pattern: SKILL_NAME_PATTERN },
          type: { type: 'string', enum: ['skill-md', 'archive'] },
          description: { type: 'string', maxLength: 1024 },
          url: { type: 'string', description: 'The artifact, relative to the index URL' },
          digest: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
        },
      },
    },
  },
};

export const ServerCardSchema = {
  type: 'object',
  required: ['$schema', 'name', 'version', 'capabilities'],
  description: 'MCP server card (SEP-2127 draft)',
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    websiteUrl: { type: 'string' },
    remotes: { type: 'array', items: { type: 'object', additionalProperties: true } },
    capabilities: { type: 'object', additionalProperties: true },
    tools: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
  additionalProperties: true,
};

const metadata = (description: string, required: string[]) => ({
  type: 'object',
  description,
  required,
  additionalProperties: true,
});

export const OpenIdConfigurationSchema = metadata('OpenID Connect Discovery 1.0 provider metadata', [
  'issuer',
  'jwks_uri',
  'response_types_supported',
]);
export const AuthorizationServerSchema = metadata('RFC 8414 authorization server metadata', [
  'issuer',
  'response_types_supported',
]);
export const ProtectedResourceSchema = metadata('RFC 9728 protected resource metadata', [
  'resource',
  'authorization_servers',
]);

export const ErrorEnvelopeSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
    },
  },
};
