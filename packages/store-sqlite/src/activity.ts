/**
 * The activity log (issue 43, docs/decisions/0057-activity-log.md) in SQLite: one row per event,
 * `details` as JSON text, a summary's count grown by an upsert on its unique key. Newest first is
 * by id (an autoincrement, never reused): the cursor of a page is the last id it showed.
 */
import type { Selectable } from 'kysely';
import type { ActivityEvent, ActivityRepository, ActivityType } from '@sl-accounts/service/core';
import { compiled, type Compiled, type Unit } from './database.ts';
import type { Database } from './schema.ts';

const COLUMNS = ['id', 'user_id', 'type', 'at', 'client_ip', 'user_agent', 'actor', 'details', 'count'] as const;
type Row = Pick<Selectable<Database['activity']>, (typeof COLUMNS)[number]>;
const toEvent = (row: Row): ActivityEvent => ({
  id: row.id,
  userId: row.user_id,
  type: row.type as ActivityType,
  at: new Date(row.at),
  clientIp: row.client_ip,
  userAgent: row.user_agent,
  actor: row.actor,
  details: JSON.parse(row.details) as ActivityEvent['details'],
  count: row.count,
});

const append = compiled(7, (db, userId: number | null, type: string, at: Date, clientIp: string | null, userAgent: string | null, actor: string | null, details: string) =>
  db.insertInto('activity').values({ user_id: userId, type, at, client_ip: clientIp, user_agent: userAgent, actor, details }),
);
const count = compiled(8, (db, userId: number | null, type: string, at: Date, clientIp: string | null, userAgent: string | null, actor: string | null, details: string, summary: string) =>
  db
    .insertInto('activity')
    .values({ user_id: userId, type, at, client_ip: clientIp, user_agent: userAgent, actor, details, summary })
    .onConflict((oc) => oc.column('summary').doUpdateSet((eb) => ({ count: eb('activity.count', '+', 1) }))),
);
const deleteBefore = compiled(1, (db, cutoff: Date) => db.deleteFrom('activity').where('at', '<', cutoff as never));

/** One listing per shape of filter (by account, by type, both, neither), compiled when first used. */
const lists = new Map<string, Compiled<Row, unknown[]>>();
function listOf(byUser: boolean, byType: boolean): Compiled<Row, unknown[]> {
  const key = `${byUser}|${byType}`;
  let list = lists.get(key);
  if (!list) {
    list = compiled(4, (db, before, limit, userId, type) => {
      let query = db.selectFrom('activity').select(COLUMNS).where('id', '<', before as number);
      if (byUser) query = query.where('user_id', '=', userId as number);
      if (byType) query = query.where('type', '=', type as string);
      return query.orderBy('id', 'desc').limit(limit as number);
    });
    lists.set(key, list);
  }
  return list;
}

export function activityRepository(unit: Unit): ActivityRepository {
  const { step } = unit;
  return {
    append: (e) => step((run) => void append.changes(run, e.userId, e.type, e.at, e.clientIp, e.userAgent, e.actor, JSON.stringify(e.details))),
    count: (e, summary) => step((run) => void count.changes(run, e.userId, e.type, e.at, e.clientIp, e.userAgent, e.actor, JSON.stringify(e.details), summary)),
    list: ({ userId, type, before, limit }) =>
      step((run) => listOf(userId != null, type != null).all(run, before ?? Number.MAX_SAFE_INTEGER, limit, userId ?? null, type ?? null).map(toEvent)),
    deleteBefore: (cutoff) => step((run) => deleteBefore.changes(run, cutoff)),
  };
}
