import { ROLE_COLORS, type Role } from '@brokerage/shared';
import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { roleLabelKey } from './role-label';

export function RoleBadge({ role }: { role: string }) {
  const { t } = useTranslation();
  const color = role in ROLE_COLORS ? ROLE_COLORS[role as Role] : 'gray';
  return (
    <Badge color={color} variant="light">
      {t(roleLabelKey(role))}
    </Badge>
  );
}
