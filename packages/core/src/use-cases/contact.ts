import { contactMail } from '../mails.ts';
import { withQuota, type Quota } from '../rate-limits.ts';
import { ContactRequest, parseRequest, toWellFormed } from '../schemas.ts';
import type { UseCaseContext } from './context.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';

export interface ContactUseCases {
  /** Stores a contact message and queues its mail to `contactTo`. Throws ValidationError or RateLimited. */
  contact(body: RequestBody, meta: RequestMeta): Promise<Quota>;
}

export function contactUseCases(context: UseCaseContext): ContactUseCases {
  const { clock } = context.ports;
  const { contactTo, serviceName } = context;
  return {
    contact: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const clientIp = await context.limit('contact', meta, tally);
        const input = parseRequest(ContactRequest, await readBody(body));
        // The user agent is the transport's, not the client's field: kept, with what no store can hold replaced.
        const userAgent = meta.userAgent == null ? null : toWellFormed(meta.userAgent);
        const message = { ...input, clientIp, userAgent, receivedAt: clock.now() };
        await context.manager.addContact(message, contactTo === undefined ? null : contactMail(message, contactTo, serviceName));
        return {};
      }),
  };
}
