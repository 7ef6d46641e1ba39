/**
 * The core's public entry: `createAccounts` assembles the groups of use cases (one file each under
 * use-cases/) over the given ports. Any Node host can call them with its own transport.
 */
import { accountDeletionUseCases, type AccountDeletionUseCases } from './use-cases/account-deletion.ts';
import { activityUseCases, type ActivityUseCases } from './use-cases/activity.ts';
import { adminUseCases, type AdminUseCases } from './use-cases/admin.ts';
import { contactUseCases, type ContactUseCases } from './use-cases/contact.ts';
import { emailUseCases, type EmailUseCases } from './use-cases/email.ts';
import { createContext, type AccountsOptions } from './use-cases/context.ts';
import { loginUseCases, type LoginUseCases } from './use-cases/login.ts';
import { passkeyUseCases, type PasskeyUseCases } from './use-cases/passkeys.ts';
import { passwordResetUseCases, type PasswordResetUseCases } from './use-cases/password-reset.ts';
import { passwordUseCases, type PasswordUseCases } from './use-cases/password.ts';
import { serviceUseCases, type ServiceUseCases } from './use-cases/service.ts';
import { sessionUseCases, type SessionUseCases } from './use-cases/sessions.ts';
import { signupUseCases, type SignupUseCases } from './use-cases/signup.ts';
import { signInProviderUseCases, type SignInProviderUseCases } from './use-cases/sign-in-providers.ts';
import { twoFactorUseCases, type TwoFactorUseCases } from './use-cases/two-factor.ts';
import { Pbkdf2PasswordHasher } from './password-hasher.ts';
import type { ManagedStore } from './account-manager.ts';
import type { Ports } from './store.ts';
import { randomTokens, systemClock } from './system.ts';

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
    AccountDeletionUseCases,
    EmailUseCases,
    PasskeyUseCases,
    TwoFactorUseCases,
    SignInProviderUseCases,
    ActivityUseCases {}

/**
 * What `createAccounts` needs: the store (or a store with a session cache in front, `cacheSessions`),
 * and optionally the hasher, clock and token source, which default to PBKDF2 at the production cost,
 * the system clock and 32 random bytes (tests pass a cheap hasher and a `ManualClock`).
 */
export type AccountsPorts = { readonly store: ManagedStore } & Partial<Omit<Ports, 'store'>>;

/**
 * The service's use cases over the given ports. This is the core's public entry: any Node host can
 * call these with its own transport. Throws RangeError for an option out of bounds.
 */
export function createAccounts(ports: AccountsPorts, options: AccountsOptions = {}): Accounts {
  return { ...useCasesOf(contextOf(ports, options)) };
}

/**
 * The operator's use cases (issue 43) over the same ports and options as `createAccounts`: the admin
 * API and the CLI are thin adapters over them. Throws RangeError for an option out of bounds.
 */
export function createAdmin(ports: AccountsPorts, options: AccountsOptions = {}): AdminUseCases {
  return adminUseCases(contextOf(ports, options));
}

/** The context of both entries. */
function contextOf(ports: AccountsPorts, options: AccountsOptions) {
  return createContext(
    {
      store: ports.store,
      hasher: ports.hasher ?? new Pbkdf2PasswordHasher(),
      clock: ports.clock ?? systemClock,
      tokens: ports.tokens ?? randomTokens,
    },
    options,
  );
}

function useCasesOf(context: ReturnType<typeof contextOf>): Accounts {
  return {
    ...activityUseCases(context),
    ...signupUseCases(context),
    ...loginUseCases(context),
    ...sessionUseCases(context),
    ...contactUseCases(context),
    ...serviceUseCases(context),
    ...passwordUseCases(context),
    ...passwordResetUseCases(context),
    ...accountDeletionUseCases(context),
    ...emailUseCases(context),
    ...passkeyUseCases(context),
    ...twoFactorUseCases(context),
    ...signInProviderUseCases(context),
  };
}
