/**
 * Where the service answers the request being handled: a host's mount prefix, then the base path
 * (`/v1/accounts`), as the device cookie's `Path` learns it. The links the core mails are built by
 * configured functions asked at each mail (`verifyUrl`, `resetUrl`), deep inside the use cases; this
 * carries the request's base to them without a parameter through every use case's signature.
 * AsyncLocalStorage because the mail is built across awaits (and, for a reset request, in work
 * started after the answer), which a plain variable would not follow.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** Runs `work` with `base` as the request's base (see `requestBase`). */
export function withRequestBase<T>(base: string, work: () => T): T {
  return current.run(base, work);
}

/**
 * The base of the request whose operation is running (`/v1/accounts`, '' at the root), when a
 * host's router mounted the service under a prefix of its own; `undefined` otherwise (no mount, or
 * outside a request), where the service's own `basePath` holds.
 */
export function requestBase(): string | undefined {
  return current.getStore();
}
