import { LoginScreen } from '../modules/auth/components/LoginScreen';
import { SignedInRedirect } from '../modules/auth/components/SignedInRedirect';
import { useSession } from '../modules/auth/api/session';

export default function LoginPage() {
  const { data: user } = useSession();
  return user ? <SignedInRedirect role={user.role} /> : <LoginScreen />;
}
