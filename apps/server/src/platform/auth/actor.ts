import { departmentOfRole, type Department, type Role } from '@brokerage/shared';
import type { UserRow } from '../db/types.js';

/** Who is acting: the signed-in user of a request, or the command-line tool. */
export interface Actor {
  id: string | null;
  name: string;
  role: Role | 'system';
  department: Department | null;
  ip: string | null;
}

export function actorFromUser(user: UserRow, ip: string | null): Actor {
  return {
    id: user.id,
    name: user.name || user.email,
    role: user.role,
    department: user.department ?? departmentOfRole(user.role),
    ip,
  };
}

export const CLI_ACTOR: Actor = { id: null, name: 'command line', role: 'system', department: null, ip: null };
