import { extname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { AgentSkillSource } from '../content/site-content.ts';
import {
  type CachedDocument,
  prepareDocument,
  prepareJsonDocument,
  serveDocument,
} from '../documents/cached-document.ts';
import { DISCOVERY_TAG, registerDocumentRoute } from '../documents/register-document-route.ts';
import { AGENT_SKILLS_PATH, buildAgentSkillsIndex, toSkillArtifact } from './agent-skills-index.ts';
import { AgentSkillsIndexSchema, ErrorEnvelopeSchema } from './discovery-schemas.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

/**
 * The Agent Skills Discovery index, the artifact of each entry, and every file of every skill.
 * A skill's SKILL.md and supporting files stay served one by one at `<name>/<path>` even when the
 * index lists its archive, so the relative links inside SKILL.md resolve for an agent that reads
 * it on the web. Everything is served from memory, looked up in maps built at start-up, so no
 * request ever touches the file system.
 */
export function registerAgentSkillsRoutes(app: FastifyInstance, skills: readonly AgentSkillSource[]): void {
  const artifacts = skills.map(toSkillArtifact);
  const index = prepareJsonDocument(buildAgentSkillsIndex(artifacts));
  const archives = new Map<string, CachedDocument>(
    artifacts
      .filter((artifact) => artifact.type === 'archive')
      .map((artifact) => [artifact.path, prepareDocument(artifact.bytes, artifact.contentType)]),
  );
  const files = new Map<string, CachedDocument>();
  for (const skill of skills) {
    for (const file of skill.files) {
      const type = CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream';
      files.set(`${skill.name}/${file.path}`, prepareDocument(file.bytes, type));
    }
  }

  registerDocumentRoute(
    app,
    {
      path: `${AGENT_SKILLS_PATH}/index.json`,
      operationId: 'agentSkillsIndex',
      summary: 'Agent Skills Discovery index (0.2.0): one artifact per skill, with its SHA-256 digest',
      mediaType: 'application/json',
      bodySchema: AgentSkillsIndexSchema,
    },
    () => index,
  );

  const serveFile = (name: string, path: string) => {
    const file = files.get(`${name}/${path}`);
    if (file === undefined) throw new ApiError('not_found', `no skill file ${name}/${path}`);
    return file;
  };
  app.get<{ Params: { name: string } }>(
    `${AGENT_SKILLS_PATH}/:name/SKILL.md`,
    {
      schema: {
        tags: [DISCOVERY_TAG],
        summary: 'The instructions of one agent skill (Markdown with YAML front matter)',
        operationId: 'agentSkill',
        params: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        response: {
          200: { description: 'SKILL.md', content: { 'text/markdown': { schema: { type: 'string' } } } },
          304: { description: 'Not modified', type: 'null' },
          404: {
            description: 'No such skill',
            content: { 'application/json': { schema: ErrorEnvelopeSchema } },
          },
        },
      },
    },
    (request, reply) => {
      const { name } = request.params;
      return serveDocument(request, reply, serveFile(name, 'SKILL.md'), { cors: true });
    },
  );
  app.get<{ Params: { name: string } }>(
    `${AGENT_SKILLS_PATH}/:name`,
    {
      schema: {
        tags: [DISCOVERY_TAG],
        summary: 'The archive (.tar.gz) of an agent skill that has supporting files',
        operationId: 'agentSkillArchive',
        params: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        response: {
          200: {
            description: 'The skill directory, gzip-compressed tar',
            content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
          },
          304: { description: 'Not modified', type: 'null' },
          404: {
            description: 'No such archive',
            content: { 'application/json': { schema: ErrorEnvelopeSchema } },
          },
        },
      },
    },
    (request, reply) => {
      const { name } = request.params;
      const archive = archives.get(name);
      if (archive === undefined) throw new ApiError('not_found', `no skill archive ${name}`);
      return serveDocument(request, reply, archive, { cors: true });
    },
  );
  // Supporting files (references/, assets/...), which SKILL.md links to by relative path.
  app.get<{ Params: { name: string; '*': string } }>(
    `${AGENT_SKILLS_PATH}/:name/*`,
    { schema: { hide: true } },
    (request, reply) => {
      const params = request.params;
      return serveDocument(request, reply, serveFile(params.name, params['*']), { cors: true });
    },
  );
}
