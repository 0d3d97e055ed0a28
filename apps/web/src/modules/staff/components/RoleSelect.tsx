import { Select } from '@mantine/core';
import type { ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import { roleLabelKey } from '../../ui/role-label';

type SelectProps = Omit<ComponentProps<typeof Select>, 'data'>;

export function RoleSelect({ roles, ...props }: SelectProps & { roles: string[] }) {
  const { t } = useTranslation();
  return (
    <Select
      data={roles.map((role) => ({ value: role, label: t(roleLabelKey(role)) }))}
      allowDeselect={false}
      comboboxProps={{ withinPortal: true }}
      {...props}
    />
  );
}
