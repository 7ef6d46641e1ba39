/**
 * The core's public entry: `createAccounts` assembles the groups of use cases (one file each under
 * use-cases/) over the given ports. Any Node host can call them with its own transport.
 */
import { accountDeletionUseCases, type AccountDeletionUseCases } from './use-cases/account-deletion.ts';
import { contactUseCases, type ContactUseCases } from './use-cases/contact.ts';
import { createContext, type AccountsOptions } from './use-cases/context.ts';
import { loginUseCases, type LoginUseCases } from './use-cases/login.ts';
import { passwordResetUseCases, type PasswordResetUseCases } from './use-cases/password-reset.ts';
import { passwordUseCases, type PasswordUseCases } from './use-cases/password.ts';
import { serviceUseCases, type ServiceUseCases } from './use-cases/service.ts';
import { sessionUseCases, type SessionUseCases } from './use-cases/sessions.ts';
import { signupUseCases, type SignupUseCases } from './use-cases/signup.ts';
import type { Ports } from './ports.ts';

/**
 * The use cases. Each takes what a transport knows about the request; those that take a body take
 * it as a value or as a function that reads it (see `RequestBody`). Failures are domain errors.
 * The rate-limited ones answer with the `Quota` the request left (its `limits`); when they fail, the
 * quota counted before the failure is `countedLimits(error)`.
 */
export interface Accounts
  extends SignupUseCases,
    LoginUseCases,
    SessionUseCases,
    ContactUseCases,
    ServiceUseCases,
    PasswordUseCases,
    PasswordResetUseCases,
    AccountDeletionUseCases {}

/**
 * The service's use cases over the given ports. This is the core's public entry: any Node host can
 * call these with its own transport. Throws RangeError for an option out of bounds.
 */
export function createAccounts(ports: Ports, options: AccountsOptions = {}): Accounts {
  const context = createContext(ports, options);
  return {
    ...signupUseCases(context),
    ...loginUseCases(context),
    ...sessionUseCases(context),
    ...contactUseCases(context),
    ...serviceUseCases(context),
    ...passwordUseCases(context),
    ...passwordResetUseCases(context),
    ...accountDeletionUseCases(context),
  };
}
