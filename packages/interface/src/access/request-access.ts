import { AccessDeniedError } from '@herald/core';
import { canSeeAccount, visibleAccountsOf, type Principal } from '@herald/core/access';
import type { FastifyRequest } from 'fastify';

/**
 * What the access guard learned about one request, and what its route adds
 * for the audit log. Kept beside the request (a WeakMap, so nothing outlives
 * it) rather than as a Fastify decoration: routes use the functions below
 * and never the state itself.
 */
interface RequestAccess {
  principal: Principal;
  /** The account the request named or touched (recorded even when it was refused). */
  accountId?: string;
  /** What it touched, when the route says (e.g. 'task:42'). */
  resource?: string;
}

const state = new WeakMap<FastifyRequest, RequestAccess>();

/** Called by the guard once the token is verified. */
export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  state.set(request, { principal });
}

/** The guard's record of the request, for the audit hook; undefined before authentication or on a public route. */
export function accessOf(request: FastifyRequest): Readonly<RequestAccess> | undefined {
  return state.get(request);
}

/**
 * The verified caller of this request. Every route but the public ones runs
 * behind the guard, so this always answers there; on a public route (or a
 * route the guard does not cover) it fails UNAUTHENTICATED rather than
 * letting an anonymous caller through.
 */
export function principalOf(request: FastifyRequest): Principal {
  const access = state.get(request);
  if (access === undefined) throw new AccessDeniedError('UNAUTHENTICATED', 'this request carries no verified token');
  return access.principal;
}

/** The accounts whose data the caller may see: 'all' for an admin. Lists filter to these. */
export function visibleAccounts(request: FastifyRequest): readonly string[] | 'all' {
  return visibleAccountsOf(principalOf(request));
}

/**
 * Refuses a request for an account the caller may not see with `notFound()`:
 * the same error (code and message) the route gives for a resource that does
 * not exist, never a 403, so an operator cannot tell another account's
 * resource from a missing one. Records the account for the audit log either way.
 *
 * @example
 *   // How routes/visible-task.ts loads the task for every /api/v1/tasks/:id route (they call visibleTask):
 *   const missing = () => new NotFoundError('TASK_NOT_FOUND', `task ${raw} does not exist`, { taskId: id });
 *   const task = await store.getTask(id);
 *   if (task === undefined) throw missing();
 *   assertCanSeeAccount(request, task.accountId, missing);
 */
export function assertCanSeeAccount(request: FastifyRequest, accountId: string, notFound: () => Error): void {
  const principal = principalOf(request);
  noteAudit(request, { accountId });
  if (!canSeeAccount(principal, accountId)) throw notFound();
}

/**
 * Admin-only endpoints (tokens, audit, cluster, the global blacklist) refuse
 * an operator with 403 FORBIDDEN: they hold no account's data, so saying
 * they exist leaks nothing.
 */
export function assertAdmin(request: FastifyRequest): void {
  if (principalOf(request).role !== 'admin')
    throw new AccessDeniedError('FORBIDDEN', 'this endpoint is for admin tokens');
}

/** Adds what the request touched to its audit entry (mutating requests only are audited). */
export function noteAudit(request: FastifyRequest, note: { accountId?: string; resource?: string }): void {
  const access = state.get(request);
  if (access === undefined) return;
  if (note.accountId !== undefined) access.accountId = note.accountId;
  if (note.resource !== undefined) access.resource = note.resource;
}
