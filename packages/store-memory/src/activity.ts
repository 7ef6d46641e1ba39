import type { AccountDirectory, ActivityEvent, ActivityRepository } from '@sl-accounts/service/core';
import type { MemoryContactStore } from './contact-store.ts';
import type { Tables, Unit } from './tables.ts';

/** The activity log in memory: events oldest first, summaries by key; writes undone with their unit. */
export class ActivityLog {
  readonly events: ActivityEvent[] = [];
  readonly summaries = new Map<string, number>();
  /** Ids are never given twice, not even those of a rolled-back append (as a SQL sequence). */
  nextId = 1;
}

/** Removes the event with this id, if it is there. */
function drop(log: ActivityLog, id: number): void {
  const at = log.events.findIndex((e) => e.id === id);
  if (at >= 0) log.events.splice(at, 1);
}

export function activityRepository(log: ActivityLog, unit: Unit): ActivityRepository {
  return {
    async append(event) {
      const stored: ActivityEvent = { ...event, details: { ...event.details }, id: log.nextId++, count: 1 };
      log.events.push(stored);
      unit.wrote(() => drop(log, stored.id));
    },

    async count(event, summary) {
      const id = log.summaries.get(summary);
      const index = id === undefined ? -1 : log.events.findIndex((e) => e.id === id);
      if (index < 0) {
        const stored: ActivityEvent = { ...event, details: { ...event.details }, id: log.nextId++, count: 1 };
        log.events.push(stored);
        log.summaries.set(summary, stored.id);
        unit.wrote(() => {
          drop(log, stored.id);
          log.summaries.delete(summary);
        });
        return;
      }
      const before = log.events[index]!;
      log.events[index] = { ...before, count: before.count + 1 };
      unit.wrote(() => {
        const now = log.events.findIndex((e) => e.id === before.id);
        if (now >= 0) log.events[now] = before;
      });
    },

    async list({ userId, type, before, limit }) {
      const found: ActivityEvent[] = [];
      for (let i = log.events.length - 1; i >= 0 && found.length < limit; i--) {
        const event = log.events[i]!;
        if (userId != null && event.userId !== userId) continue;
        if (type != null && event.type !== type) continue;
        if (before != null && event.id >= before) continue;
        found.push(event);
      }
      return found;
    },

    async deleteBefore(cutoff) {
      const t = cutoff.getTime();
      const gone = log.events.filter((e) => e.at.getTime() < t);
      for (const event of gone) drop(log, event.id);
      for (const [key, id] of log.summaries) if (gone.some((e) => e.id === id)) log.summaries.delete(key);
      return gone.length;
    },
  };
}

/** The operator's reads over the memory store's rows (see `AccountDirectory`). */
export function memoryDirectory(tables: Tables, contacts: MemoryContactStore): AccountDirectory {
  return {
    async search(prefix, after, limit) {
      const found = [];
      // The map keeps insertion order, which is id order (ids only grow).
      for (const user of tables.users.values()) {
        if (found.length >= limit) break;
        if ((after === null || user.id > after) && user.email.startsWith(prefix)) found.push(user);
      }
      return found;
    },
    async contactsFrom(email, limit) {
      return contacts.messages.filter((m) => m.email === email).slice(0, limit);
    },
    async pendingLinks(userId) {
      const tokens = [...tables.oneTimeTokens.values()].filter((t) => t.userId === userId);
      const link = tokens.find((t) => t.purpose === 'verify-email' || t.purpose === 'change-email');
      const reset = tokens.find((t) => t.purpose === 'password-reset');
      return {
        emailLink: link ? { purpose: link.purpose === 'verify-email' ? 'verify' : 'change', email: link.email ?? '', createdAt: link.createdAt, expiresAt: link.expiresAt } : null,
        passwordReset: reset ? { createdAt: reset.createdAt, expiresAt: reset.expiresAt } : null,
      };
    },
  };
}
