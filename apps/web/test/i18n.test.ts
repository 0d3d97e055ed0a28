import { AUDIT_ACTIONS, CLIENT_STATUSES, CRM_MENU, ROLES, VALIDATION_MESSAGES } from '@brokerage/shared';
import { describe, expect, it } from 'vitest';
import en from '../src/i18n/en.json';
import ru from '../src/i18n/ru.json';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

const languages = { ru: flatten(ru), en: flatten(en) };

describe('translation files', () => {
  it('ru and en have exactly the same keys', () => {
    const ruKeys = [...languages.ru.keys()].sort();
    const enKeys = [...languages.en.keys()].sort();
    expect(ruKeys.filter((k) => !languages.en.has(k))).toEqual([]);
    expect(enKeys.filter((k) => !languages.ru.has(k))).toEqual([]);
    expect(ruKeys).toEqual(enKeys);
  });

  it('no string is empty', () => {
    for (const [lang, keys] of Object.entries(languages)) {
      const empty = [...keys].filter(([, value]) => value.trim() === '').map(([key]) => `${lang}:${key}`);
      expect(empty).toEqual([]);
    }
  });

  it('both use the same interpolation variables for each key', () => {
    const vars = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const [key, ruText] of languages.ru) {
      expect(vars(languages.en.get(key) ?? ''), key).toEqual(vars(ruText));
    }
  });

  it.each(Object.keys(VALIDATION_MESSAGES))('has validation.%s in ru and en', (code) => {
    for (const keys of Object.values(languages)) expect(keys.has(`validation.${code}`)).toBe(true);
  });

  it('validation texts take their parameter as {{n}} where the shared message has {n}', () => {
    for (const [code, message] of Object.entries(VALIDATION_MESSAGES)) {
      const expectsN = message.ru.includes('{n}');
      for (const keys of Object.values(languages)) {
        expect(keys.get(`validation.${code}`)?.includes('{{n}}'), code).toBe(expectsN);
      }
    }
  });

  it('the ru validation texts are the shared ones', () => {
    for (const [code, message] of Object.entries(VALIDATION_MESSAGES)) {
      expect(languages.ru.get(`validation.${code}`)).toBe(message.ru.replace('{n}', '{{n}}'));
      expect(languages.en.get(`validation.${code}`)).toBe(message.en.replace('{n}', '{{n}}'));
    }
  });

  it.each(CRM_MENU.map((entry) => entry.labelKey))('has the menu label %s in ru and en', (labelKey) => {
    for (const keys of Object.values(languages)) expect(keys.has(labelKey)).toBe(true);
  });

  it('menu labels in ru are those of back-office.md §2.2', () => {
    expect(ru.menu).toMatchObject({
      dashboard: 'Главная',
      clients: 'Клиенты',
      calendar: 'Календарь',
      applications: 'Заявки',
      history: 'История',
      integration: 'Интеграция',
      staff: 'Сотрудники',
      tradingManagement: 'Торговая платформа',
      tradingAccounts: 'Торговые аккаунты',
      access: 'Доступ',
      audit: 'Журнал действий',
    });
  });

  it.each([...ROLES])('has the role label roles.%s in ru and en', (role) => {
    for (const keys of Object.values(languages)) expect(keys.has(`roles.${role}`)).toBe(true);
  });

  it('role labels are those of back-office.md §6', () => {
    expect(ru.roles).toMatchObject({
      superadmin: 'Суперадмин',
      admin: 'Админ',
      team_lead_sales: 'Тим лид продаж',
      team_lead_retention: 'Тим лид удержания',
      // Issue 15 defect 13: translated in ru (back-office.md §6 had left them in English).
      sales_manager: 'Менеджер продаж',
      retention_manager: 'Менеджер удержания',
      manager: 'Менеджер',
    });
    expect(en.roles).toMatchObject({
      superadmin: 'Superadmin',
      admin: 'Admin',
      team_lead_sales: 'Team lead Sales',
      team_lead_retention: 'Team lead Retention',
      manager: 'Manager',
    });
  });

  it.each([...AUDIT_ACTIONS])('has the audit action label audit.actions.%s in ru and en', (action) => {
    for (const keys of Object.values(languages)) expect(keys.has(`audit.actions.${action}`)).toBe(true);
  });

  it.each([...CLIENT_STATUSES])('has the client status label clients.statuses.%s in ru and en', (status) => {
    for (const keys of Object.values(languages)) expect(keys.has(`clients.statuses.${status}`)).toBe(true);
  });

  it('client status labels and list texts are those of back-office.md §2.5 and §4', () => {
    expect(ru.clients.statuses).toEqual({
      new: 'Новый',
      ftd: 'ФТД',
      in_progress: 'В работе',
      potential: 'Потенциальный',
      not_potential: 'Не потенциальный',
      under_18: 'Нет 18',
      no_russian: 'Не говорит на рус',
      not_interested: 'Не интересно',
      replace: 'Заменить',
      duplicate: 'Дубль',
      fake: 'Фейк',
    });
    expect(en.clients.statuses.no_russian).toBe("Doesn't speak Russian");
    expect(ru.clients.title).toBe('Клиенты');
    expect(ru.clients.empty).toBe('Клиенты не найдены');
    expect(en.clients.empty).toBe('Clients not found');
    expect(en.clients.loading).toBe('Loading clients...');
    expect(ru.clients.unassigned).toBe('Не назначен');
    expect(ru.clients.filters.reset).toBe('Сбросить');
    expect(ru.common.selected).toBe('Выбрано: {{count}}');
  });

  it('ru pluralises the access status with every Russian plural form', () => {
    for (const form of ['one', 'few', 'many', 'other'])
      expect(languages.ru.has(`access.restricted_${form}`)).toBe(true);
  });

  it('keeps the spec texts of §2.3, §2.12, §2.14 and §8', () => {
    expect(ru.login.subtitle).toBe('Войдите в систему управления');
    expect(ru.login.submit).toBe('Войти');
    expect(ru.login.submitting).toBe('Вход...');
    expect(ru.layout.logout).toBe('Выйти');
    expect(ru.notifications.denied).toBe('Для получения уведомлений разрешите их показ в настройках браузера');
    expect(ru.errors.invalidJson).toBe('Сервер вернул некорректные данные. Попробуйте обновить страницу.');
    expect(ru.dashboard.loading).toBe('Загрузка статистики...');
    expect(en.login.failed).toBe('Login failed');
    expect(en.staff.empty).toBe('Staff not found');
    expect(en.staff.loading).toBe('Loading staff...');
    expect(en.accessDenied.title).toBe('Access denied');
    expect(en.staff.onlyAdmin).toBe('Only an administrator can manage staff');
    expect(en.staff.deleteModal.text).toBe(
      'Are you sure you want to delete staff member {{name}}? All clients assigned to this staff member will become unassigned. This action cannot be undone.',
    );
    expect(en.access.deleteModal.text).toBe(
      'Are you sure you want to remove this IP address from the whitelist? This action cannot be undone. Access from this IP address will be blocked.',
    );
    expect(en.access.open).toBe('Access open');
    expect(en.access.addModal.error).toBe('Error adding IP address');
  });
});
