/** Roles of back-office.md §6. `client` is not staff and never enters /crm. */
export const STAFF_ROLES = [
  'superadmin',
  'admin',
  'team_lead_sales',
  'team_lead_retention',
  'sales_manager',
  'retention_manager',
  'manager',
] as const;
export const ROLES = [...STAFF_ROLES, 'client'] as const;

export type StaffRole = (typeof STAFF_ROLES)[number];
export type Role = (typeof ROLES)[number];

/** Roles a staff member can be given from the staff page (the legacy `manager` is kept for old records only). */
export const ASSIGNABLE_STAFF_ROLES = [
  'team_lead_sales',
  'sales_manager',
  'team_lead_retention',
  'retention_manager',
  'admin',
  'superadmin',
] as const satisfies readonly StaffRole[];

/** decisions.md D10: a new staff member defaults to sales_manager. */
export const DEFAULT_STAFF_ROLE: StaffRole = 'sales_manager';

export type Department = 'sales' | 'retention';

export function isStaffRole(role: string): role is StaffRole {
  return (STAFF_ROLES as readonly string[]).includes(role);
}

/** The department a role belongs to, for statistics and the team-lead scope of D5. */
export function departmentOfRole(role: Role): Department | null {
  switch (role) {
    case 'team_lead_sales':
    case 'sales_manager':
    case 'manager':
      return 'sales';
    case 'team_lead_retention':
    case 'retention_manager':
      return 'retention';
    default:
      return null;
  }
}

/** Managers as counted by the staff page summary card (§2.12). */
export const MANAGER_ROLES: readonly StaffRole[] = [
  'manager',
  'sales_manager',
  'retention_manager',
  'team_lead_sales',
  'team_lead_retention',
];

/** Badge colours for role badges, shared by every screen that shows a role. */
export const ROLE_COLORS: Record<Role, string> = {
  superadmin: 'red',
  admin: 'orange',
  team_lead_sales: 'blue',
  team_lead_retention: 'grape',
  sales_manager: 'cyan',
  retention_manager: 'violet',
  manager: 'gray',
  client: 'green',
};
