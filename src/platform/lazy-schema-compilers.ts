import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own validator and serializer compilers (Ajv, fast-json-stringify), each route's
 * schema compiled on the route's first use instead of at start-up.
 *
 * Fastify compiles every route's body validator and response serializers before it listens:
 * generated code and closures for every route of the native API, both compatible doors, the
 * admin API and the dashboard, held for the life of the process whether or not a caller ever
 * uses the route (about 4.5 MiB of the gateway's idle RSS, docs/performance.md). Here the
 * compile runs when the route first validates a body or serializes an answer; the first
 * request of each route pays it once (a millisecond or two), and compiled code is what Fastify
 * would have built, with the same Ajv options and shared schemas.
 *
 * A schema that does not compile would then fail on its route's first request rather than at
 * start-up: `compileEveryRouteSchema` compiles what is still pending, so that a test over every
 * route of both surfaces finds such a schema before a caller does.
 */

type Compile<Fn> = (route: RouteDefinition) => Fn;
type Factory<Fn> = (externalSchemas: unknown, options: unknown) => Compile<Fn>;

interface RouteDefinition {
  schema: unknown;
  method: string;
  url: string;
}

/** Ajv's validate function as Fastify reads it: a verdict, then `errors`. */
interface ValidateFunction {
  (data: unknown, context?: unknown): unknown;
  errors?: unknown;
  schemaEnv?: unknown;
}

type Serializer = (data: unknown) => string;

export interface LazySchemaCompilers {
  compilersFactory: NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
  /** Compiles every schema not compiled yet and says how many; throws as a failing compile does. */
  compileAll(): number;
}

export function lazySchemaCompilers(): LazySchemaCompilers {
  const pending = new Set<() => unknown>();
  const validators = ValidatorSelector() as unknown as Factory<ValidateFunction>;
  const serializers = SerializerSelector() as unknown as Factory<Serializer>;

  const buildValidator: Factory<ValidateFunction> = (externalSchemas, options) => {
    const compile = validators(externalSchemas, options);
    return (route) => {
      const compiled = onFirstUse(pending, () => compile(route));
      const validate: ValidateFunction = (data, context) => {
        const fn = compiled();
        const verdict = fn(data, context);
        validate.errors = fn.errors;
        return verdict;
      };
      // Fastify hands Ajv's functions (those with a schemaEnv) the parent object as a second
      // argument, which Ajv needs only to replace a root value (coercion, defaults: both off).
      // Passing it on keeps the compiled function's calling convention whatever the options.
      validate.schemaEnv = true;
      return validate;
    };
  };

  const buildSerializer: Factory<Serializer> = (externalSchemas, options) => {
    const compile = serializers(externalSchemas, options);
    return (route) => {
      const compiled = onFirstUse(pending, () => compile(route));
      return (data) => compiled()(data);
    };
  };

  return {
    compilersFactory: {
      buildValidator,
      buildSerializer,
    } as unknown as LazySchemaCompilers['compilersFactory'],
    compileAll() {
      const now = [...pending];
      for (const compileNow of now) compileNow();
      return now.length;
    },
  };
}

/** `compile`'s result, made on the first call and kept; listed in `pending` until then. */
function onFirstUse<T>(pending: Set<() => unknown>, compile: () => T): () => T {
  let compiled: T | undefined;
  const compileNow = () => {
    pending.delete(compileNow);
    compiled ??= compile();
    return compiled;
  };
  pending.add(compileNow);
  return () => compiled ?? compileNow();
}
