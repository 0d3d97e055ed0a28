import { menuFor, type Role } from '@brokerage/shared';
import { NavLink, Stack, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { FALLBACK_MENU_ICON, MENU_ICONS } from '../menu-icons';
import { menuLabelKey } from '../menu-label';

function isActive(pathname: string, path: string): boolean {
  return pathname === path || pathname.startsWith(`${path}/`);
}

/** The side menu entries of §2.2 the role may see (§6), the current one marked. */
export function SideMenu({ role, collapsed, onNavigate }: { role: Role; collapsed: boolean; onNavigate: () => void }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <Stack gap={4} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
      {menuFor(role).map((entry) => {
        const Icon = MENU_ICONS[entry.path] ?? FALLBACK_MENU_ICON;
        const active = isActive(pathname, entry.path);
        const label = t(menuLabelKey(entry.labelKey));
        const link = (
          <NavLink
            component={Link}
            to={entry.path}
            onClick={onNavigate}
            active={active}
            aria-current={active ? 'page' : undefined}
            aria-label={collapsed ? label : undefined}
            label={collapsed ? null : label}
            leftSection={<Icon size={20} stroke={1.6} />}
            variant="light"
            style={{ borderRadius: 'var(--mantine-radius-md)' }}
            data-path={entry.path}
          />
        );
        return (
          <li key={entry.path}>
            {collapsed ? (
              <Tooltip label={label} position="right" withArrow>
                {link}
              </Tooltip>
            ) : (
              link
            )}
          </li>
        );
      })}
    </Stack>
  );
}
