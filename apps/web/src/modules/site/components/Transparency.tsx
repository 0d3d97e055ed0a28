import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { siteFetch } from '../api';
import { useRemote } from '../hooks';

/** The answer of GET /api/price-log/key (issue 30 §1); only what this section shows. */
interface PriceLogKey {
  algorithm: string;
  public_key: string;
  key_id: string;
}

export const TRANSPARENCY_ID = 'transparency';
const KEY_PATH = '/api/price-log/key';
const HEADS_PATH = '/api/price-log/heads';
const loadKey = () => siteFetch<PriceLogKey>(KEY_PATH);
const STEPS = ['log', 'heads', 'proof', 'check'] as const;

/**
 * The transparency section (issue 30 §3): the provable-prices scheme in plain words, the public key the log is signed
 * with, and links to the key, the published heads and the '/verify' page. The risk warnings link here.
 */
export function Transparency() {
  const { t } = useTranslation('site');
  const key = useRemote(loadKey);

  // Reached by a link from another page (/#transparency), the section did not exist yet when the browser looked for
  // the anchor: the page renders after its script has loaded.
  useEffect(() => {
    if (window.location.hash === `#${TRANSPARENCY_ID}`) document.getElementById(TRANSPARENCY_ID)?.scrollIntoView();
  }, []);

  return (
    <section id={TRANSPARENCY_ID} className="site-section site-alt" data-testid="transparency">
      <div className="site-container">
        <h2>{t('transparency.title')}</h2>
        <p className="site-lead">{t('transparency.lead')}</p>
        <ol className="site-grid site-grid-4 site-steps">
          {STEPS.map((step) => (
            <li key={step} className="site-card">
              <h3 className="site-step-title">{t(`transparency.steps.${step}.title`)}</h3>
              <p>{t(`transparency.steps.${step}.text`)}</p>
            </li>
          ))}
        </ol>
        <div className="site-card site-transparency-facts">
          <p>
            <strong>{t('transparency.cli')}</strong> <code className="site-code">npx brokerage-verify proof.json</code>
          </p>
          <p>
            <strong>{t('transparency.publicKey')}:</strong>{' '}
            {key.data ? (
              <code className="site-code" data-testid="transparency-key">
                {key.data.public_key}
              </code>
            ) : (
              <span>{key.loading ? t('transparency.keyLoading') : t('transparency.keyError')}</span>
            )}
          </p>
          <p className="site-transparency-links">
            <a className="site-btn site-btn-primary" href="/verify" data-testid="transparency-verify">
              {t('transparency.verify')}
            </a>
            <a className="site-btn site-btn-outline" href={KEY_PATH} target="_blank" rel="noopener">
              {t('transparency.key')}
            </a>
            <a className="site-btn site-btn-outline" href={HEADS_PATH} target="_blank" rel="noopener">
              {t('transparency.heads')}
            </a>
          </p>
        </div>
      </div>
    </section>
  );
}
