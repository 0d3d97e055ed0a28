import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/types.js';
import type { Actor } from '../auth/actor.js';

/**
 * decisions.md D5, the one place that says which clients a staff member sees. Every query on clients and their
 * records goes through it; a client outside the scope is answered 404 exactly like a missing one.
 * - superadmin, admin: every client;
 * - team leads: clients assigned to staff of their department, and unassigned clients;
 * - managers: only clients assigned to them.
 * `clientsAlias` is the alias under which the clients table appears in the query.
 */
export function scopeClients<DB extends Database, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  actor: Actor,
  clientsAlias = 'clients',
): SelectQueryBuilder<DB, TB, O> {
  const col = sql.ref(`${clientsAlias}.assigned_manager`);
  switch (actor.role) {
    case 'superadmin':
    case 'admin':
      return query;
    case 'team_lead_sales':
    case 'team_lead_retention': {
      const department = actor.department ?? (actor.role === 'team_lead_sales' ? 'sales' : 'retention');
      const roles =
        department === 'sales'
          ? ['team_lead_sales', 'sales_manager', 'manager']
          : ['team_lead_retention', 'retention_manager'];
      return query.where(
        sql<boolean>`(${col} is null or ${col} in (select u.id from users u where u.department = ${department} or (u.department is null and u.role in (${sql.join(roles)}))))`,
      );
    }
    case 'sales_manager':
    case 'retention_manager':
    case 'manager':
      return query.where(sql<boolean>`${col} = ${actor.id}`);
    default:
      // Clients and the command line see no client through the staff scope.
      return query.where(sql<boolean>`false`);
  }
}
