import { CALENDAR_FILTERS, type CalendarEvent } from '@brokerage/shared';
import { Alert, Badge, Button, Card, Group, Loader, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useEconomicCalendar, type CalendarFilter } from './api';
import { DemoNotice } from './DemoNotice';
import { eventText, formatDate, formatMoney, localEventTime, todayIn, type EventT } from './format';

const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** §2.8 / §9: at most 10 events are shown. */
export const CALENDAR_LIMIT = 10;
const IMPACT_COLORS = { high: 'red', medium: 'yellow', low: 'gray' } as const;

function figures(e: CalendarEvent, t: (key: string) => string, lang: string): string {
  const parts: string[] = [];
  if (e.actual !== null) parts.push(`${t('marketInfo.calendar.actual')}: ${e.actual}`);
  if (e.forecast !== null) parts.push(`${t('marketInfo.calendar.forecast')}: ${e.forecast}`);
  if (e.previous !== null) parts.push(`${t('marketInfo.calendar.previous')}: ${e.previous}`);
  if (e.amount !== null) parts.push(`${t('marketInfo.calendar.amount')}: ${formatMoney(e.amount, lang)}`);
  if (e.ratio !== null) parts.push(`${t('marketInfo.calendar.ratio')}: ${e.ratio}`);
  return parts.join(' · ');
}

/**
 * The economic calendar view of the trading screen (client-platform.md §2.8, D14): filters all / earnings / dividends /
 * splits / economic; today's events first, then by date and time; refreshed on open, every 5 minutes and on 'Обновить'.
 */
export function EconomicCalendarView() {
  const { t, i18n } = useTranslation('site');
  const [filter, setFilter] = useState<CalendarFilter>('all');
  const calendar = useEconomicCalendar(filter);
  // The screen's clock: the browser's zone, named under the list (issue 27 item 5).
  const today = todayIn(LOCAL_ZONE);
  const events = (calendar.data?.events ?? []).slice(0, CALENDAR_LIMIT);

  return (
    <Card withBorder padding="md" data-testid="economic-calendar">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={3}>{t('marketInfo.calendar.title')}</Title>
          <Button
            variant="light"
            size="xs"
            onClick={() => void calendar.refetch()}
            loading={calendar.isFetching}
            data-testid="calendar-refresh"
          >
            {t('marketInfo.calendar.refresh')}
          </Button>
        </Group>
        <SegmentedControl
          value={filter}
          onChange={(v) => setFilter(v as CalendarFilter)}
          data={CALENDAR_FILTERS.map((f) => ({ value: f, label: t(`marketInfo.calendar.filters.${f}`) }))}
          fullWidth
          size="xs"
          data-testid="calendar-filter"
        />
        {calendar.data ? <DemoNotice source={calendar.data.source} /> : null}
        {calendar.isPending ? (
          <Group justify="center" p="md">
            <Loader size="sm" />
          </Group>
        ) : calendar.isError ? (
          <Alert color="red" variant="light">
            <Group justify="space-between">
              <Text size="sm">{t('marketInfo.calendar.error')}</Text>
              <Button size="xs" variant="white" onClick={() => void calendar.refetch()}>
                {t('common.retry')}
              </Button>
            </Group>
          </Alert>
        ) : events.length === 0 ? (
          <Text c="dimmed" ta="center" p="md">
            {t('marketInfo.calendar.empty')}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={420}>
            <Table verticalSpacing="xs" data-testid="calendar-events">
              <Table.Tbody>
                {events.map((e) => {
                  const local = localEventTime(e.date, e.time, LOCAL_ZONE);
                  return (
                    <Table.Tr key={e.id} data-type={e.type}>
                      <Table.Td style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
                        {local.date === today ? (
                          <Badge size="sm">{t('marketInfo.calendar.today')}</Badge>
                        ) : (
                          <Text size="sm">{formatDate(local.date, i18n.language)}</Text>
                        )}
                        {local.time ? (
                          <Text size="xs" c="dimmed" data-testid="calendar-time">
                            {local.time}
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={6} wrap="wrap">
                          <Text size="sm" fw={600}>
                            {eventText(e, 'title', t as unknown as EventT)}
                          </Text>
                          <Badge size="xs" variant="outline">
                            {t(`marketInfo.calendar.filters.${e.type}`)}
                          </Badge>
                          {e.impact ? (
                            <Badge size="xs" color={IMPACT_COLORS[e.impact]}>
                              {t(`marketInfo.calendar.impact.${e.impact}`)}
                            </Badge>
                          ) : null}
                          {e.currency ? (
                            <Text size="xs" c="dimmed">
                              {e.currency}
                            </Text>
                          ) : null}
                        </Group>
                        {e.description ? (
                          <Text size="xs" c="dimmed">
                            {eventText(e, 'description', t as unknown as EventT)}
                          </Text>
                        ) : null}
                        <Text size="xs">{figures(e, t as (key: string) => string, i18n.language)}</Text>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {events.some((e) => e.time) ? (
          <Text size="xs" c="dimmed" data-testid="calendar-zone">
            {t('marketInfo.calendar.zone', { zone: LOCAL_ZONE })}
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}
