import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError } from '../../platform/errors.ts';
import { CONFIRM_PATH, UNSUBSCRIBE_PATH } from './confirmation-mail.ts';
import { PAGE_HEADERS, prefersHtml, renderPage, renderUnsubscribeForm } from './newsletter-pages.ts';
import {
  jsonOrHtml,
  OneClickBody,
  SignupAnswer,
  SignupBody,
  StatusAnswer,
  signupErrors,
  TokenQuery,
  tokenErrors,
} from './newsletter-schemas.ts';
import type { NewsletterService } from './newsletter-service.ts';
import { readSignupBody } from './read-signup-body.ts';
import type { SignupRateLimit } from './signup-rate-limit.ts';

export interface NewsletterRouteDeps {
  service: NewsletterService;
  rateLimit: SignupRateLimit;
}

/** The schemas document; the handlers validate (see newsletter-schemas.ts). */
const documentOnly = { validatorCompiler: () => () => true } as const;
/** RFC 8058 bodies are one short field; anything much larger is not a one-click POST. */
const ONE_CLICK_BODY_LIMIT = 16 * 1024;

/**
 * POST /api/newsletter, and the two links of the confirmation mail. The links answer a small HTML
 * page to a browser and JSON to anything else; errors keep the envelope's code either way.
 */
export function registerNewsletterRoutes(app: FastifyInstance, deps: NewsletterRouteDeps): void {
  app.post(
    '/api/newsletter',
    {
      ...documentOnly,
      schema: {
        summary: 'Subscribe an address to the newsletter',
        description:
          'Answers the same for every valid address, known or not. With a mail transport configured, a confirmation mail (double opt-in) is sent; the subscription starts when its link is used.',
        operationId: 'subscribeNewsletter',
        tags: ['site'],
        body: SignupBody,
        response: { 200: SignupAnswer, ...signupErrors },
      },
      // Counted before the body is read, so a flood costs a counter and no parsing.
      onRequest: async (request) => {
        const decision = await deps.rateLimit.take(request.ip);
        if (!decision.allowed) {
          throw new ApiError('rate_limited', 'too many signups from this address; try again later', {
            headers: { 'retry-after': String(decision.retryAfterSeconds) },
          });
        }
      },
    },
    async (request) => {
      const fields = readSignupBody(request.body);
      const status = await deps.service.subscribe({
        ...fields,
        ip: request.ip,
        userAgent: request.headers['user-agent'],
      });
      return { ok: true, status };
    },
  );

  app.get(
    CONFIRM_PATH,
    {
      ...documentOnly,
      // A HEAD from a link scanner must not confirm anything.
      exposeHeadRoute: false,
      schema: {
        summary: 'Confirm a newsletter subscription (the link in the confirmation mail)',
        operationId: 'confirmNewsletter',
        tags: ['site'],
        querystring: TokenQuery,
        response: { 200: jsonOrHtml(StatusAnswer, 'Confirmed, now or before'), ...tokenErrors },
      },
    },
    (request, reply) =>
      respond(request, reply, async () => {
        const outcome = await deps.service.confirm(readToken(request));
        switch (outcome) {
          case 'confirmed':
            return answerSubscribed(
              'Subscription confirmed',
              'Thank you: the newsletter will come to this address.',
            );
          case 'already_confirmed':
            return answerSubscribed(
              'Already confirmed',
              'This subscription was confirmed before; nothing more to do.',
            );
          case 'expired':
            throw new ApiError(
              'invalid_request',
              'this confirmation link has expired; sign up again for a new one',
            );
          case 'invalid':
            throw new ApiError('invalid_request', 'this confirmation link is not valid (any more)');
        }
      }),
  );

  app.get(
    UNSUBSCRIBE_PATH,
    {
      ...documentOnly,
      schema: {
        summary: 'Show the unsubscribe confirmation (the link in every mail)',
        description: 'Changes nothing; the page has a button that POSTs to the same URL.',
        operationId: 'showNewsletterUnsubscribe',
        tags: ['site'],
        querystring: TokenQuery,
        response: { 200: jsonOrHtml(StatusAnswer, 'The current status'), ...tokenErrors },
      },
    },
    (request, reply) =>
      respond(request, reply, async () => {
        const status = await deps.service.lookUpUnsubscribe(readToken(request));
        if (status === undefined) throw makeInvalidLinkError();
        if (status === 'unsubscribed') {
          return {
            json: { ok: true, status },
            html: renderPage('Already unsubscribed', 'This address gets no newsletter mail.'),
          };
        }
        return { json: { ok: true, status }, html: renderUnsubscribeForm() };
      }),
  );

  app.register(async (oneClick) => {
    // RFC 8058: the mailbox provider POSTs `List-Unsubscribe=One-Click` as form data (urlencoded or
    // multipart), without cookies. The token in the URL is the authority, so any body is accepted and ignored.
    oneClick.removeAllContentTypeParsers();
    oneClick.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: ONE_CLICK_BODY_LIMIT },
      (_r, _b, done) => done(null, undefined),
    );
    oneClick.post(
      UNSUBSCRIBE_PATH,
      {
        ...documentOnly,
        schema: {
          summary: 'Unsubscribe (RFC 8058 one-click, or the button of the unsubscribe page)',
          operationId: 'unsubscribeNewsletter',
          tags: ['site'],
          querystring: TokenQuery,
          consumes: ['application/x-www-form-urlencoded', 'multipart/form-data'],
          body: OneClickBody,
          response: { 200: jsonOrHtml(StatusAnswer, 'Unsubscribed, now or before'), ...tokenErrors },
        },
      },
      (request, reply) =>
        respond(request, reply, async () => {
          const outcome = await deps.service.unsubscribe(readToken(request));
          if (outcome === 'invalid') throw makeInvalidLinkError();
          return {
            json: { ok: true, status: 'unsubscribed' },
            html: renderPage('Unsubscribed', 'This address will get no more newsletter mail.'),
          };
        }),
    );
  });
}

interface Answer {
  json: { ok: true; status: string };
  html: string;
}

function answerSubscribed(title: string, message: string): Answer {
  return { json: { ok: true, status: 'subscribed' }, html: renderPage(title, message) };
}

function makeInvalidLinkError(): ApiError {
  return new ApiError('invalid_request', 'this unsubscribe link is not valid');
}

function readToken(request: FastifyRequest): unknown {
  return (request.query as Record<string, unknown> | undefined)?.token;
}

/** Sends the answer, or the error, as HTML to a browser and as JSON (the envelope for errors) otherwise. */
async function respond(request: FastifyRequest, reply: FastifyReply, work: () => Promise<Answer>) {
  const html = prefersHtml(request.headers.accept);
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  try {
    const answer = await work();
    return html ? reply.headers(PAGE_HEADERS).send(answer.html) : reply.send(answer.json);
  } catch (error) {
    if (!html || !isApiError(error)) throw error;
    const title = error.statusCode >= 500 ? 'Something went wrong' : 'This link does not work';
    const message =
      error.statusCode >= 500 ? 'Please try again in a few minutes.' : `Sorry: ${error.message}.`;
    return reply.code(error.statusCode).headers(PAGE_HEADERS).send(renderPage(title, message));
  }
}
