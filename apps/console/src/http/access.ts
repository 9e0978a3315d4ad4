import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PageContext } from '../pages/layout';

const SESSION_COOKIE = 'console_session';
const SESSION_MAX_AGE_S = 8 * 60 * 60;

export const READ_ONLY_REASON =
  'Read-only: this console was started without CONSOLE_TOKEN, so redrives, offset resets and demo orders are refused.';
export const SIGN_IN_REASON =
  'Sign in with the console token to redrive, reset offsets or place demo orders.';

/** Why a request may not change anything, or undefined when it may. */
export type Refusal = { readonly status: 403; readonly reason: string } | undefined;

/**
 * Who may change something. Actions need the token configured at start-up (CONSOLE_TOKEN), and
 * either a signed-in browser session plus the form's CSRF token, or `Authorization: Bearer
 * <token>` (scripts; a browser never attaches that header on its own, so it needs no CSRF token).
 */
export class Access {
  /** Session ids live in memory: a restart signs everybody out, which is fine for a console. */
  private readonly sessions = new Map<string, number>();
  private readonly tokenDigest: Buffer | undefined;

  constructor(token: string | undefined) {
    this.tokenDigest = token === undefined ? undefined : digest(token);
  }

  get tokenConfigured(): boolean {
    return this.tokenDigest !== undefined;
  }

  async register(app: FastifyInstance): Promise<void> {
    await app.register(fastifyFormbody);
    // Signs the session cookie; a fresh secret per process (sessions are per process anyway).
    await app.register(fastifyCookie, { secret: randomBytes(32).toString('hex') });
    await app.register(fastifyCsrfProtection, {
      sessionPlugin: '@fastify/cookie',
      cookieOpts: { path: '/', sameSite: 'strict', httpOnly: true, signed: true },
    });
  }

  /** Constant-time comparison of a presented token with the configured one. */
  matches(presented: string | undefined): boolean {
    if (this.tokenDigest === undefined || presented === undefined || presented === '') return false;
    return timingSafeEqual(digest(presented), this.tokenDigest);
  }

  signIn(reply: FastifyReply): void {
    const id = randomBytes(24).toString('hex');
    this.sessions.set(id, Date.now() + SESSION_MAX_AGE_S * 1000);
    void reply.setCookie(SESSION_COOKIE, id, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      signed: true,
      maxAge: SESSION_MAX_AGE_S,
    });
  }

  signOut(request: FastifyRequest, reply: FastifyReply): void {
    const id = this.sessionId(request);
    if (id !== undefined) this.sessions.delete(id);
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
  }

  signedIn(request: FastifyRequest): boolean {
    const id = this.sessionId(request);
    const expires = id === undefined ? undefined : this.sessions.get(id);
    if (expires === undefined) return false;
    if (expires < Date.now()) {
      this.sessions.delete(id!);
      return false;
    }
    return true;
  }

  /** Whether this request may change something; checked before the CSRF token. */
  refusal(request: FastifyRequest): Refusal {
    if (!this.tokenConfigured) return { status: 403, reason: READ_ONLY_REASON };
    if (this.bearer(request) !== undefined) {
      return this.matches(this.bearer(request))
        ? undefined
        : { status: 403, reason: 'Invalid bearer token.' };
    }
    if (!this.signedIn(request)) return { status: 403, reason: SIGN_IN_REASON };
    return undefined;
  }

  /** Whether the request authenticates with a bearer token (then no CSRF token is needed). */
  usesBearer(request: FastifyRequest): boolean {
    return this.bearer(request) !== undefined;
  }

  /** What every page needs to render its banner and forms. */
  pageContext(request: FastifyRequest, reply: FastifyReply): PageContext {
    const signedIn = this.tokenConfigured && this.signedIn(request);
    const readOnlyReason = !this.tokenConfigured ? READ_ONLY_REASON : signedIn ? undefined : SIGN_IN_REASON;
    return {
      readOnlyReason,
      signedIn,
      tokenConfigured: this.tokenConfigured,
      csrf: this.tokenConfigured ? reply.generateCsrf() : '',
    };
  }

  private bearer(request: FastifyRequest): string | undefined {
    const header = request.headers.authorization;
    if (header === undefined) return undefined;
    const match = /^Bearer\s+(.+)$/i.exec(header);
    return match?.[1]?.trim() ?? '';
  }

  private sessionId(request: FastifyRequest): string | undefined {
    const raw = request.cookies[SESSION_COOKIE];
    if (raw === undefined) return undefined;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value !== null ? unsigned.value : undefined;
  }
}

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
