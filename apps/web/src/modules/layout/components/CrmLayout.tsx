import { ActionIcon, AppShell, Burger, Group, ScrollArea, Text, Tooltip } from '@mantine/core';
import { useLocalStorage, useMediaQuery } from '@mantine/hooks';
import { IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { STORAGE_KEYS } from '../../../lib/storage-keys';
import { FailedAttemptsNotice } from '../../auth/components/FailedAttemptsNotice';
import { useCurrentUser } from '../../auth/current-user';
import { ThemeToggle } from '../../ui/ThemeToggle';
import { useSwipeLeft } from '../hooks/useSwipeLeft';
import { MOBILE_QUERY } from '../../ui/media';
import { pageTitleKey } from '../page-title';
import { NotificationsBell } from '../../notifications/components/NotificationsBell';
import { MenuFooter } from './MenuFooter';
import { SideMenu } from './SideMenu';

const NAVBAR_WIDTH = 260;
const NAVBAR_COLLAPSED_WIDTH = 76;

/** §2.2: the back office frame, a side menu (collapsible on desktop, sliding on mobile) and the page. */
export function CrmLayout() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const location = useLocation();
  const isMobile = useMediaQuery(MOBILE_QUERY, false, { getInitialValueInEffect: false }) ?? false;
  const [collapsedSetting, setCollapsed] = useLocalStorage<boolean>({
    key: STORAGE_KEYS.menuCollapsed,
    defaultValue: false,
    getInitialValueInEffect: false,
  });
  // The mobile menu is open only on the page where it was opened: any navigation closes it.
  const [openedAt, setOpenedAt] = useState<string | null>(null);
  const mobileOpened = openedAt === location.key;
  const closeMobile = () => setOpenedAt(null);
  const swipe = useSwipeLeft(closeMobile);
  const collapsed = !isMobile && collapsedSetting;
  const title = t(pageTitleKey(location.pathname));

  return (
    <AppShell
      header={{ height: 56, collapsed: !isMobile }}
      navbar={{
        width: collapsed ? NAVBAR_COLLAPSED_WIDTH : NAVBAR_WIDTH,
        breakpoint: 'sm',
        collapsed: { mobile: !mobileOpened },
      }}
      padding={{ base: 'sm', sm: 'lg' }}
    >
      <AppShell.Header px="sm">
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
            <Burger
              opened={mobileOpened}
              onClick={() => setOpenedAt(mobileOpened ? null : location.key)}
              size="sm"
              aria-label={mobileOpened ? t('layout.closeMenu') : t('layout.openMenu')}
              aria-expanded={mobileOpened}
              data-testid="burger"
            />
            <Text fw={600} truncate data-testid="page-title">
              {title}
            </Text>
          </Group>
          {isMobile ? <ThemeToggle /> : null}
        </Group>
      </AppShell.Header>

      <AppShell.Navbar
        p="sm"
        aria-label={t('layout.navigation')}
        data-testid="side-menu"
        data-collapsed={collapsed || undefined}
        inert={isMobile && !mobileOpened}
        {...swipe}
      >
        <AppShell.Section mb="sm">
          <Group justify={collapsed ? 'center' : 'space-between'} wrap="nowrap">
            {collapsed ? null : (
              <Text component={Link} to="/crm" fw={800} size="lg" c="blue" td="none" onClick={closeMobile}>
                {t('app.name')}
              </Text>
            )}
            {isMobile ? null : (
              <Tooltip label={collapsed ? t('layout.expandMenu') : t('layout.collapseMenu')} position="right">
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  size="lg"
                  onClick={() => setCollapsed(!collapsedSetting)}
                  aria-label={collapsed ? t('layout.expandMenu') : t('layout.collapseMenu')}
                  aria-expanded={!collapsed}
                  data-testid="menu-collapse"
                >
                  {collapsed ? <IconLayoutSidebarLeftExpand size={20} /> : <IconLayoutSidebarLeftCollapse size={20} />}
                </ActionIcon>
              </Tooltip>
            )}
          </Group>
        </AppShell.Section>
        <AppShell.Section grow component={ScrollArea} type="scroll">
          <SideMenu role={user.role} collapsed={collapsed} onNavigate={closeMobile} />
        </AppShell.Section>
        <AppShell.Section pt="sm" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
          <MenuFooter user={user} collapsed={collapsed} />
        </AppShell.Section>
      </AppShell.Navbar>

      <AppShell.Main>
        <FailedAttemptsNotice timeZone={user.business_timezone} />
        <Outlet />
      </AppShell.Main>
      <NotificationsBell timeZone={user.business_timezone} />
    </AppShell>
  );
}
