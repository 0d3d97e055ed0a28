import { useTranslation } from 'react-i18next';
import '../areas/site/site.css';

/**
 * The public not-found page (any path outside the site, the trading screen and /crm): in the public site's look and
 * language (ru/en/kk), leading back to the landing page. Unknown paths under /crm keep the back office's own page.
 */
export default function NotFoundPage() {
  const { t } = useTranslation('site');
  return (
    <div className="site">
      <main className="site-notfound" data-testid="not-found">
        <div>
          <strong aria-hidden="true">404</strong>
          <h1>{t('notFound.title')}</h1>
          <p className="site-lead">{t('notFound.text')}</p>
          <a className="site-btn site-btn-primary site-btn-lg" href="/">
            {t('notFound.home')}
          </a>
        </div>
      </main>
    </div>
  );
}
