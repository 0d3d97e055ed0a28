import type { SiteContent, SiteFacts } from '@brokerage/shared';
import { useTranslation } from 'react-i18next';
import { formatNumber, localized, type SiteUser } from '../api';
import type { Remote } from '../hooks';
import { RiskProofLink, RiskStatement } from './RiskStatement';

interface Actions {
  onLogin: () => void;
  onRegister: () => void;
}

/** A figure stated by the system or the content file; while it loads a placeholder, never a number. */
function Claim({ value, note, testId }: { value: string; note: string; testId: string }) {
  return (
    <li className="site-claim" data-testid={testId}>
      <strong>{value}</strong>
      <span>{note}</span>
    </li>
  );
}

export function Hero({
  user,
  facts,
  content,
  onLogin,
  onRegister,
}: Actions & { user: SiteUser | null | undefined; facts: Remote<SiteFacts>; content: SiteContent | undefined }) {
  const { t, i18n } = useTranslation('site');
  const f = facts.data;
  const support = localized(content?.support_hours, i18n.language);
  const ms = f?.median_settlement_ms;
  return (
    <section id="home" className="site-section site-hero">
      <div className="site-container">
        <h1>{t('hero.title')}</h1>
        <p className="site-lead">{t('hero.subtitle')}</p>
        <div className="site-hero-actions">
          {user ? (
            <a className="site-btn site-btn-primary site-btn-lg" href="/trading" data-testid="hero-platform">
              {t('hero.goPlatform')}
            </a>
          ) : (
            <>
              <button type="button" className="site-btn site-btn-primary site-btn-lg" onClick={onRegister}>
                {t('hero.start')}
              </button>
              <button type="button" className="site-btn site-btn-outline site-btn-lg" onClick={onLogin}>
                {t('hero.login')}
              </button>
              <a className="site-btn site-btn-outline site-btn-lg" href="/demo" data-testid="hero-demo">
                {t('hero.demo')}
              </a>
            </>
          )}
        </div>
        <ul className="site-claims" aria-busy={facts.loading}>
          {f ? (
            <>
              <Claim
                testId="claim-profit"
                value={t('hero.profit', { n: f.max_payout_percentage })}
                note={t('hero.profitNote')}
              />
              <Claim testId="claim-assets" value={t('hero.assets', { n: f.asset_count })} note={t('hero.assetsNote')} />
            </>
          ) : (
            <li className="site-claim site-skeleton" aria-hidden="true" />
          )}
          {support ? (
            <Claim testId="claim-support" value={t('hero.support', { hours: support })} note={t('hero.supportNote')} />
          ) : null}
          {ms != null && f ? (
            <Claim
              testId="claim-settlement"
              value={
                ms < 1000
                  ? t('hero.ms', { n: formatNumber(ms, i18n.language, 0) })
                  : t('hero.seconds', { n: formatNumber(ms / 1000, i18n.language, 1) })
              }
              note={t('hero.settlementNote', { count: f.settled_trades_measured })}
            />
          ) : null}
        </ul>
        {f ? (
          <p className="site-risk-banner" role="note" data-testid="hero-risk">
            <RiskStatement facts={f} proofLink={false} /> {t('risk')} <RiskProofLink />
          </p>
        ) : null}
      </div>
    </section>
  );
}

const WHY = ['honest', 'transparent', 'prices', 'demo'] as const;

export function About({ content, onRegister }: { content: SiteContent | undefined; onRegister: () => void }) {
  const { t, i18n } = useTranslation('site');
  const lang = i18n.language;
  const milestones = (content?.milestones ?? []).filter((m) => localized(m.title, lang));
  const stories = (content?.testimonials ?? []).filter((s) => localized(s.quote, lang));
  const stats = (
    [
      ['clients', content?.stats?.clients],
      ['years', content?.stats?.years_in_business],
      ['countries', content?.stats?.countries],
    ] as const
  ).filter((entry): entry is readonly ['clients' | 'years' | 'countries', number] => typeof entry[1] === 'number');
  return (
    <section id="about" className="site-section site-alt">
      <div className="site-container">
        <h2>{t('about.title')}</h2>
        <p className="site-lead">{t('about.subtitle')}</p>
        {stats.length > 0 ? (
          <ul className="site-stats" data-testid="about-stats">
            {stats.map(([key, value]) => (
              <li key={key}>
                <strong>{formatNumber(value, lang)}</strong>
                <span>{t(`about.stats.${key}`)}</span>
              </li>
            ))}
          </ul>
        ) : null}
        {milestones.length > 0 ? (
          <div data-testid="about-history">
            <h3>{t('about.history')}</h3>
            <ol className="site-timeline">
              {milestones.map((m, i) => (
                <li key={i}>
                  <span className="site-timeline-year">{m.year}</span>
                  <strong>{localized(m.title, lang)}</strong>
                  {localized(m.text, lang) ? <p>{localized(m.text, lang)}</p> : null}
                </li>
              ))}
            </ol>
          </div>
        ) : null}
        {stories.length > 0 ? (
          <div data-testid="about-stories">
            <h3>{t('about.stories')}</h3>
            <div className="site-grid site-grid-3">
              {stories.map((s, i) => (
                <figure key={i} className="site-card">
                  <blockquote>{localized(s.quote, lang)}</blockquote>
                  <figcaption>
                    <strong>{s.name}</strong>
                    {s.years !== undefined ? <span>{t('about.storyYears', { n: s.years })}</span> : null}
                    {localized(s.result, lang) ? <span>{localized(s.result, lang)}</span> : null}
                  </figcaption>
                </figure>
              ))}
            </div>
          </div>
        ) : null}
        <h3>{t('about.why')}</h3>
        <div className="site-grid site-grid-4">
          {WHY.map((key) => (
            <div key={key} className="site-card">
              <h4>{t(`about.whyItems.${key}.title`)}</h4>
              <p>{t(`about.whyItems.${key}.text`)}</p>
            </div>
          ))}
        </div>
        <div className="site-center">
          <button type="button" className="site-btn site-btn-primary site-btn-lg" onClick={onRegister}>
            {t('about.startEarning')}
          </button>
        </div>
      </div>
    </section>
  );
}

const FEATURES = ['charts', 'security', 'execution', 'transparency', 'assets', 'mobile', 'languages', 'demo'] as const;

export function Features({ onRegister }: { onRegister: () => void }) {
  const { t } = useTranslation('site');
  return (
    <section id="features" className="site-section">
      <div className="site-container">
        <h2>{t('features.title')}</h2>
        <p className="site-lead">{t('features.subtitle')}</p>
        <div className="site-grid site-grid-4">
          {FEATURES.map((key) => (
            <div key={key} className="site-card">
              <h4>{t(`features.items.${key}.title`)}</h4>
              <p>{t(`features.items.${key}.text`)}</p>
            </div>
          ))}
        </div>
        <div className="site-cta">
          <h3>{t('features.ctaTitle')}</h3>
          <p>{t('features.ctaText')}</p>
          <button type="button" className="site-btn site-btn-primary site-btn-lg" onClick={onRegister}>
            {t('features.ctaButton')}
          </button>
        </div>
      </div>
    </section>
  );
}

/** The operator's education offers in this language (D6): those with a title; none means no section at all. */
export function educationOffers(content: SiteContent | undefined, lang: string) {
  return (content?.education ?? []).filter((offer) => localized(offer.title, lang));
}

/**
 * Issue 27 item 14: the Education section shows what the operator offers (site content `education`: title, text, link)
 * and nothing else — no promised webinars, certification or personal training. Without offers it is not rendered, and
 * the menu leaves it out (SiteArea).
 */
export function Education({ content }: { content: SiteContent | undefined }) {
  const { t, i18n } = useTranslation('site');
  const lang = i18n.language;
  const offers = educationOffers(content, lang);
  const community = content?.stats?.community;
  if (offers.length === 0) return null;
  return (
    <section id="education" className="site-section site-alt" data-testid="education-section">
      <div className="site-container">
        <h2>{t('education.title')}</h2>
        <p className="site-lead">{t('education.subtitle')}</p>
        <div className="site-grid site-grid-3">
          {offers.map((offer, i) => (
            <div key={i} className="site-card" data-testid="education-offer">
              <h3>{localized(offer.title, lang)}</h3>
              {localized(offer.text, lang) ? <p>{localized(offer.text, lang)}</p> : null}
              {offer.link ? (
                <a href={offer.link} target="_blank" rel="noopener noreferrer" className="site-link">
                  {t('education.open')}
                </a>
              ) : null}
            </div>
          ))}
          {typeof community === 'number' ? (
            <div className="site-card" data-testid="education-community">
              <h3>{t('education.community.title')}</h3>
              <p>{t('education.community.text', { n: formatNumber(community, lang) })}</p>
            </div>
          ) : null}
        </div>
      </div>
    </section>
  );
}
