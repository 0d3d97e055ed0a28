import type { SiteContent, SiteFacts } from '@brokerage/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { localized } from '../api';
import { Dialog } from './Dialog';
import { RiskStatement } from './RiskStatement';

type Legal = 'rules' | 'risk_disclosure';

/** §2.2 footer: the risk disclaimer with the operator's legal pages, card networks, contacts and registration line. */
export function Footer({ content, facts }: { content: SiteContent | undefined; facts?: SiteFacts | undefined }) {
  const { t, i18n } = useTranslation('site');
  const lang = i18n.language;
  const [legal, setLegal] = useState<Legal | null>(null);
  const rules = localized(content?.legal?.rules, lang);
  const disclosure = localized(content?.legal?.risk_disclosure, lang);
  const registration = localized(content?.registration, lang);
  const address = localized(content?.contacts?.address, lang);
  const email = content?.contacts?.email?.trim();
  const phone = content?.contacts?.phone?.trim();
  const brand = content?.brand.name ?? '';
  const legalText = legal === 'rules' ? rules : disclosure;
  return (
    <footer className="site-footer">
      <div className="site-container">
        <div className="site-risk" data-testid="risk-warning" role="note">
          <strong>{t('footer.riskTitle')}.</strong> <RiskStatement facts={facts} /> {t('risk')}{' '}
          {rules || disclosure ? (
            <span>
              {t('footer.read')}{' '}
              {rules ? (
                <button type="button" className="site-link" onClick={() => setLegal('rules')}>
                  {t('footer.rules')}
                </button>
              ) : null}
              {rules && disclosure ? ` ${t('footer.and')} ` : null}
              {disclosure ? (
                <button type="button" className="site-link" onClick={() => setLegal('risk_disclosure')}>
                  {t('footer.riskDisclosure')}
                </button>
              ) : null}
              .
            </span>
          ) : null}
        </div>
        <div className="site-footer-row">
          <div className="site-cards" role="group" aria-label={t('footer.cards')}>
            <span className="site-card-logo visa">VISA</span>
            <span className="site-card-logo mc" role="img" aria-label="Mastercard">
              <i />
              <i />
            </span>
          </div>
          {email || phone || address ? (
            <address className="site-contacts" data-testid="footer-contacts">
              <strong>{t('footer.contacts')}</strong>
              {email ? <a href={`mailto:${email}`}>{email}</a> : null}
              {phone ? <a href={`tel:${phone.replace(/[^\d+]/g, '')}`}>{phone}</a> : null}
              {address ? <span>{address}</span> : null}
            </address>
          ) : null}
        </div>
        {registration ? (
          <p className="site-small site-muted" data-testid="footer-registration">
            {registration}
          </p>
        ) : null}
        <p className="site-small site-muted">{t('footer.rights', { year: new Date().getFullYear(), brand })}</p>
      </div>
      <Dialog
        open={legal !== null}
        onClose={() => setLegal(null)}
        labelledBy="site-legal-title"
        closeLabel={t('legalClose')}
      >
        <h2 id="site-legal-title">{legal === 'rules' ? t('footer.rules') : t('footer.riskDisclosure')}</h2>
        {legalText.split(/\n{2,}/).map((p, i) => (
          <p key={i}>{p}</p>
        ))}
      </Dialog>
    </footer>
  );
}
