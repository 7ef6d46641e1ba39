/**
 * The activity log (issue 43, docs/decisions/0057-activity-log.md) in Postgres: one row per event,
 * `details` as jsonb, a summary's count grown by an upsert on its unique key (concurrent counts,
 * also from several processes, all count). Newest first is by id (an identity, never reused): the
 * cursor of a page is the last id it showed.
 */
import { sql, type Selectable } from 'kysely';
import type { ActivityEvent, ActivityRepository, ActivityType } from '@sl-accounts/service/core';
import { statement, type Statement } from './compiled.ts';
import type { ActivityTable } from './database.ts';
import type { Unit } from './unit.ts';

const COLUMNS = ['id', 'user_id', 'type', 'at', 'client_ip', 'user_agent', 'actor', 'details', 'count'] as const;

/** A row as the table declares it (database.ts), without the summary key, which no read selects. */
type Row = Omit<Selectable<ActivityTable>, 'summary'>;

const toEvent = (row: Row): ActivityEvent => ({
  id: Number(row.id),
  userId: row.user_id,
  type: row.type as ActivityType,
  at: row.at,
  clientIp: row.client_ip,
  userAgent: row.user_agent,
  actor: row.actor,
  details: row.details,
  count: row.count,
});

const append = statement(7, (db, userId: number | null, type: string, at: Date, clientIp: string | null, userAgent: string | null, actor: string | null, details: string) =>
  db.insertInto('activity').values({ user_id: userId, type, at, client_ip: clientIp, user_agent: userAgent, actor, details: sql`${details}::jsonb` }),
);
const count = statement(8, (db, userId: number | null, type: string, at: Date, clientIp: string | null, userAgent: string | null, actor: string | null, details: string, summary: string) =>
  db
    .insertInto('activity')
    .values({ user_id: userId, type, at, client_ip: clientIp, user_agent: userAgent, actor, details: sql`${details}::jsonb`, summary })
    .onConflict((oc) => oc.column('summary').doUpdateSet((eb) => ({ count: eb('activity.count', '+', 1) }))),
);
const deleteBefore = statement(1, (db, cutoff: Date) => db.deleteFrom('activity').where('at', '<', cutoff).returning('id'));

/** One listing per shape of filter (by account, by type, both, neither), compiled when first used. */
const lists = new Map<string, Statement<Row, unknown[]>>();
function listOf(byUser: boolean, byType: boolean): Statement<Row, unknown[]> {
  const key = `${byUser}|${byType}`;
  let list = lists.get(key);
  if (!list) {
    list = statement(4, (db, before, limit, userId, type) => {
      let query = db.selectFrom('activity').select(COLUMNS).where('id', '<', before as number);
      if (byUser) query = query.where('user_id', '=', userId as number);
      if (byType) query = query.where('type', '=', type as string);
      return query.orderBy('id', 'desc').limit(limit as number);
    }) as Statement<Row, unknown[]>;
    lists.set(key, list);
  }
  return list;
}

export function activityRepository(unit: Unit): ActivityRepository {
  const { run } = unit;
  return {
    async append(e) {
      await append(run, e.userId, e.type, e.at, e.clientIp, e.userAgent, e.actor, JSON.stringify(e.details));
    },
    async count(e, summary) {
      await count(run, e.userId, e.type, e.at, e.clientIp, e.userAgent, e.actor, JSON.stringify(e.details), summary);
    },
    async list({ userId, type, before, limit }) {
      const rows = await listOf(userId != null, type != null)(run, before ?? Number.MAX_SAFE_INTEGER, limit, userId ?? null, type ?? null);
      return rows.map(toEvent);
    },
    async deleteBefore(cutoff) {
      return (await deleteBefore(run, cutoff)).length;
    },
  };
}
