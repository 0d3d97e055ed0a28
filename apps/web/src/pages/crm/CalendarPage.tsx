import { useCurrentUser } from '../../modules/auth/current-user';
import { ReminderCalendar } from '../../modules/reminders-calendar/components/ReminderCalendar';

export default function CalendarPage() {
  const user = useCurrentUser();
  return <ReminderCalendar timeZone={user.business_timezone} />;
}
