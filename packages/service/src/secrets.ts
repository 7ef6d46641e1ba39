/**
 * The key that seals second factors' secrets, settled once at the start
 * (docs/decisions/0048-startup-checks.md): `accounts.secrets` as given; without it the development
 * key outside production (with a warning), none in production. Then the key is proved against what
 * is stored: the newest factor's secret must open under it, else the start is refused with one
 * line naming SECRETS_KEY, instead of every code answering an error later.
 */
import { developmentSecretBox, secretContext, type SecretBox, type Store } from '@sl-accounts/service/core';

/** The box the service seals with, `null` for none; rejects when it cannot open what is stored. */
export async function settleSecrets(given: SecretBox | null | undefined, store: Pick<Store, 'totp'>, warn: (message: string) => void, production = process.env.NODE_ENV === 'production'): Promise<SecretBox | null> {
  let box = given;
  if (box === undefined && !production) {
    warn('accounts.secrets is not set: TOTP secrets are sealed with the development key, which protects nothing (pass accounts: { secrets: secretBox(process.env.SECRETS_KEY) }; SECRETS_KEY from `openssl rand -base64 32`)');
    box = developmentSecretBox();
  }
  if (!box) {
    const enabled = await store.totp.countEnabled();
    if (enabled > 0) throw new Error(`SECRETS_KEY is not set (createService: accounts.secrets), and ${enabled} account(s) have TOTP on: their codes cannot be checked without it. Set it to the key they were enrolled under.`);
    if (given === undefined) warn('accounts.secrets is not set and NODE_ENV is production: TOTP enrolment answers 503 two_factor_unavailable until you pass accounts: { secrets: secretBox(process.env.SECRETS_KEY) }');
    return null;
  }
  const factor = await store.totp.newest();
  if (factor && !opens(box, factor.sealedSecret, secretContext(factor.userId))) {
    const which = box.development ? 'SECRETS_KEY is not set, and the development key' : 'SECRETS_KEY';
    throw new Error(`${which} does not open the stored TOTP secrets: start with the SECRETS_KEY they were sealed under (createService: accounts.secrets: secretBox(that key)).`);
  }
  return box;
}

function opens(box: SecretBox, sealed: string, context: string): boolean {
  try {
    box.open(sealed, context);
    return true;
  } catch {
    return false;
  }
}
