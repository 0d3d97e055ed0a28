import type { MailCategory, MailLanguage } from '../../platform/db/types.js';

/**
 * Issue 22 §1, §5: every message the product sends, with the data each needs. Clients get their language (ru/en/kk),
 * staff Russian. Links are absolute (Mailer.link). Amounts are preformatted ("$1,250.00").
 * CONTRACT: H1 (mail) renders these; every other module only picks a name and passes its data.
 */
export interface TemplateData {
  /** Registration or an e-mail change: the link proves the address (24 h). */
  verify_email: { name: string; link: string };
  /** The old address is told that the account's e-mail is changing to `new_email`. */
  email_changed: { name: string; new_email: string };
  /** 'Забыли пароль?': the reset link (1 h). */
  password_reset: { name: string; link: string };
  /** After any password change (reset, profile, staff-set). */
  password_changed: { name: string };
  /** Staff invitation (72 h): set a password, and enroll in 2FA where the role needs it. */
  staff_invitation: { name: string; link: string; role_label: string; invited_by: string; two_factor: boolean };
  /** Clients. */
  withdrawal_approved: { name: string; amount: string; card_last4: string };
  withdrawal_rejected: { name: string; amount: string; reason: string };
  deposit_credited: { name: string; amount: string };
  new_sign_in: { name: string; ip: string; device: string; at: string };
  /** A message from the broker (§2.15), also e-mailed unless the client turned such mail off. */
  broker_message: { name: string; text: string; link: string };
  /** Staff. */
  two_factor_enrolled: { name: string };
  two_factor_reset: { name: string; by: string };
  reminders_digest: { name: string; link: string; reminders: { at: string; text: string; client: string }[] };
}

export type TemplateName = keyof TemplateData;

/**
 * Security mail always goes (it cannot be turned off); transactional mail follows the profile's switch; bulk mail also
 * carries List-Unsubscribe and List-Unsubscribe-Post (RFC 8058) and an unsubscribe link.
 */
export const TEMPLATE_CATEGORY: Record<TemplateName, MailCategory> = {
  verify_email: 'security',
  email_changed: 'security',
  password_reset: 'security',
  password_changed: 'security',
  staff_invitation: 'security',
  withdrawal_approved: 'transactional',
  withdrawal_rejected: 'transactional',
  deposit_credited: 'transactional',
  new_sign_in: 'security',
  broker_message: 'bulk',
  two_factor_enrolled: 'security',
  two_factor_reset: 'security',
  reminders_digest: 'bulk',
};

export interface RenderContext {
  /** The brand of the site content (D6). */
  brand: string;
  /** The legal footer: the site content's risk disclosure in the message's language. */
  legal: string;
  publicUrl: string;
  /** Bulk mail: the unsubscribe page's link. */
  unsubscribeLink?: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** What a template says, before it is laid out as text and HTML. Every value is plain text (escaped in the HTML). */
interface Parts {
  subject: string;
  /** The first line ("Здравствуйте, Анна!"); absent for a message without a name. */
  greeting?: string;
  /** Paragraphs; a paragraph may hold line breaks (a broker's message). */
  paragraphs: string[];
  /** A labelled table of facts (amount, card, reason …). */
  details?: [string, string][];
  /** The one action of the message: a button in HTML, the label and the bare link on its own line in text. */
  action?: { label: string; link: string };
  /** A table of rows (the reminders of the digest), with its column headings. */
  table?: { head: string[]; rows: string[][] };
  /** After the action: what to do if it was not you, how long the link lives … */
  after?: string[];
}

type Builders = {
  [K in TemplateName]: Partial<Record<MailLanguage, (d: TemplateData[K]) => Parts>> & {
    ru: (d: TemplateData[K]) => Parts;
  };
};

/** The words every message shares, per language. */
const COMMON: Record<
  MailLanguage,
  {
    hello: (name: string) => string;
    helloAnon: string;
    fallback: string;
    auto: string;
    unsubscribe: string;
    unsubscribeNote: string;
  }
> = {
  ru: {
    hello: (name) => `Здравствуйте, ${name}!`,
    helloAnon: 'Здравствуйте!',
    fallback: 'Если кнопка не открывается, скопируйте ссылку в адресную строку браузера:',
    auto: 'Это письмо отправлено автоматически, отвечать на него не нужно.',
    unsubscribe: 'Отписаться от рассылки',
    unsubscribeNote: 'Вы получили это письмо, потому что не отключили такие письма в профиле.',
  },
  en: {
    hello: (name) => `Hello, ${name}!`,
    helloAnon: 'Hello!',
    fallback: 'If the button does not open, copy the link into your browser:',
    auto: 'This message was sent automatically; there is no need to reply.',
    unsubscribe: 'Unsubscribe',
    unsubscribeNote: 'You received this message because such mail is turned on in your profile.',
  },
  kk: {
    hello: (name) => `Сәлеметсіз бе, ${name}!`,
    helloAnon: 'Сәлеметсіз бе!',
    fallback: 'Егер батырма ашылмаса, сілтемені браузердің мекенжай жолына көшіріңіз:',
    auto: 'Бұл хат автоматты түрде жіберілді, оған жауап берудің қажеті жоқ.',
    unsubscribe: 'Таратылымнан бас тарту',
    unsubscribeNote: 'Бұл хатты профильде мұндай хаттарды өшірмегендіктен алдыңыз.',
  },
};

const NOT_YOU = {
  ru: 'Если это были не вы, срочно смените пароль и напишите в поддержку.',
  en: 'If this was not you, change your password at once and write to support.',
  kk: 'Егер бұл сіз болмасаңыз, құпия сөзді дереу өзгертіп, қолдау қызметіне жазыңыз.',
} as const;

const TEMPLATES: Builders = {
  verify_email: {
    ru: (d) => ({
      subject: 'Подтвердите адрес электронной почты',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['Подтвердите, пожалуйста, что этот адрес электронной почты принадлежит вам.'],
      action: { label: 'Подтвердить адрес', link: d.link },
      after: [
        'Ссылка действует 24 часа и открывается один раз.',
        'Если вы не регистрировались и не меняли адрес, просто не открывайте ссылку.',
      ],
    }),
    en: (d) => ({
      subject: 'Confirm your e-mail address',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ['Please confirm that this e-mail address belongs to you.'],
      action: { label: 'Confirm the address', link: d.link },
      after: [
        'The link works for 24 hours and only once.',
        'If you did not sign up or change your address, simply ignore this message.',
      ],
    }),
    kk: (d) => ({
      subject: 'Электрондық пошта мекенжайын растаңыз',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: ['Осы электрондық пошта мекенжайы сізге тиесілі екенін растаңыз.'],
      action: { label: 'Мекенжайды растау', link: d.link },
      after: [
        'Сілтеме 24 сағат жарамды және тек бір рет ашылады.',
        'Егер сіз тіркелмеген немесе мекенжайды өзгертпеген болсаңыз, бұл хатты елемеңіз.',
      ],
    }),
  },
  email_changed: {
    ru: (d) => ({
      subject: 'Адрес электронной почты меняется',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: [
        `В вашей учётной записи запрошена смена адреса электронной почты на ${d.new_email}. Адрес сменится, когда его подтвердят по ссылке из письма на новый адрес.`,
      ],
      after: [NOT_YOU.ru],
    }),
    en: (d) => ({
      subject: 'Your e-mail address is being changed',
      greeting: COMMON.en.hello(d.name),
      paragraphs: [
        `A change of your account's e-mail address to ${d.new_email} was requested. It changes once the link sent to the new address is opened.`,
      ],
      after: [NOT_YOU.en],
    }),
    kk: (d) => ({
      subject: 'Электрондық пошта мекенжайы өзгертілуде',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: [
        `Есептік жазбаңыздың электрондық поштасын ${d.new_email} мекенжайына өзгерту сұралды. Мекенжай жаңа адреске жіберілген сілтеме ашылғанда өзгереді.`,
      ],
      after: [NOT_YOU.kk],
    }),
  },
  password_reset: {
    ru: (d) => ({
      subject: 'Восстановление пароля',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['Для вашей учётной записи запрошено восстановление пароля. Задайте новый пароль по ссылке.'],
      action: { label: 'Задать новый пароль', link: d.link },
      after: [
        'Ссылка действует 1 час и открывается один раз.',
        'Если вы не запрашивали восстановление, ничего не делайте: пароль останется прежним.',
      ],
    }),
    en: (d) => ({
      subject: 'Reset your password',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ['A password reset was requested for your account. Set a new password with the link.'],
      action: { label: 'Set a new password', link: d.link },
      after: [
        'The link works for 1 hour and only once.',
        'If you did not ask for this, do nothing: your password stays as it is.',
      ],
    }),
    kk: (d) => ({
      subject: 'Құпия сөзді қалпына келтіру',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: [
        'Есептік жазбаңыз үшін құпия сөзді қалпына келтіру сұралды. Жаңа құпия сөзді сілтеме арқылы орнатыңыз.',
      ],
      action: { label: 'Жаңа құпия сөз орнату', link: d.link },
      after: [
        'Сілтеме 1 сағат жарамды және тек бір рет ашылады.',
        'Егер сіз сұрамаған болсаңыз, ештеңе істемеңіз: құпия сөз өзгермейді.',
      ],
    }),
  },
  password_changed: {
    ru: (d) => ({
      subject: 'Пароль изменён',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['Пароль вашей учётной записи только что изменён.'],
      after: [NOT_YOU.ru],
    }),
    en: (d) => ({
      subject: 'Your password was changed',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ["Your account's password has just been changed."],
      after: [NOT_YOU.en],
    }),
    kk: (d) => ({
      subject: 'Құпия сөз өзгертілді',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: ['Есептік жазбаңыздың құпия сөзі жаңа ғана өзгертілді.'],
      after: [NOT_YOU.kk],
    }),
  },
  staff_invitation: {
    ru: (d) => ({
      subject: 'Приглашение в бэк-офис',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: [
        `${d.invited_by} приглашает вас в бэк-офис. Роль: ${d.role_label}.`,
        d.two_factor
          ? 'Задайте свой пароль по ссылке, затем подключите двухфакторную аутентификацию: для вашей роли она обязательна.'
          : 'Задайте свой пароль по ссылке, и вы сразу войдёте.',
      ],
      action: { label: 'Принять приглашение', link: d.link },
      after: ['Ссылка действует 72 часа и открывается один раз.'],
    }),
  },
  withdrawal_approved: {
    ru: (d) => ({
      subject: 'Заявка на вывод средств одобрена',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['Ваша заявка на вывод средств одобрена и передана на выплату.'],
      details: [
        ['Сумма', d.amount],
        ['Карта', `•••• ${d.card_last4}`],
      ],
    }),
    en: (d) => ({
      subject: 'Your withdrawal was approved',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ['Your withdrawal request was approved and sent for payout.'],
      details: [
        ['Amount', d.amount],
        ['Card', `•••• ${d.card_last4}`],
      ],
    }),
    kk: (d) => ({
      subject: 'Қаражат шығару өтінімі мақұлданды',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: ['Қаражат шығару өтініміңіз мақұлданып, төлемге жіберілді.'],
      details: [
        ['Сома', d.amount],
        ['Карта', `•••• ${d.card_last4}`],
      ],
    }),
  },
  withdrawal_rejected: {
    ru: (d) => ({
      subject: 'Заявка на вывод средств отклонена',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['Ваша заявка на вывод средств отклонена. Сумма вернулась на ваш торговый счёт.'],
      details: [['Сумма', d.amount], ...(d.reason ? [['Причина', d.reason] as [string, string]] : [])],
    }),
    en: (d) => ({
      subject: 'Your withdrawal was rejected',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ['Your withdrawal request was rejected. The amount is back on your trading account.'],
      details: [['Amount', d.amount], ...(d.reason ? [['Reason', d.reason] as [string, string]] : [])],
    }),
    kk: (d) => ({
      subject: 'Қаражат шығару өтінімі қабылданбады',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: ['Қаражат шығару өтініміңіз қабылданбады. Сома сауда шотыңызға қайтарылды.'],
      details: [['Сома', d.amount], ...(d.reason ? [['Себебі', d.reason] as [string, string]] : [])],
    }),
  },
  deposit_credited: {
    ru: (d) => ({
      subject: 'Счёт пополнен',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['На ваш торговый счёт зачислены средства.'],
      details: [['Сумма', d.amount]],
    }),
    en: (d) => ({
      subject: 'Funds credited to your account',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ['Funds were credited to your trading account.'],
      details: [['Amount', d.amount]],
    }),
    kk: (d) => ({
      subject: 'Шот толықтырылды',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: ['Сауда шотыңызға қаражат есептелді.'],
      details: [['Сома', d.amount]],
    }),
  },
  new_sign_in: {
    ru: (d) => ({
      subject: 'Вход с нового устройства',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['В вашу учётную запись выполнен вход с нового устройства или адреса.'],
      details: [
        ['Время', d.at],
        ['IP-адрес', d.ip],
        ['Устройство', d.device],
      ],
      after: [NOT_YOU.ru],
    }),
    en: (d) => ({
      subject: 'Sign-in from a new device',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ['Someone signed in to your account from a new device or address.'],
      details: [
        ['Time', d.at],
        ['IP address', d.ip],
        ['Device', d.device],
      ],
      after: [NOT_YOU.en],
    }),
    kk: (d) => ({
      subject: 'Жаңа құрылғыдан кіру',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: ['Есептік жазбаңызға жаңа құрылғыдан немесе мекенжайдан кіру орындалды.'],
      details: [
        ['Уақыты', d.at],
        ['IP мекенжайы', d.ip],
        ['Құрылғы', d.device],
      ],
      after: [NOT_YOU.kk],
    }),
  },
  broker_message: {
    ru: (d) => ({
      subject: 'Новое сообщение от брокера',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['Вам пришло сообщение:', d.text],
      action: { label: 'Открыть переписку', link: d.link },
    }),
    en: (d) => ({
      subject: 'A new message from your broker',
      greeting: COMMON.en.hello(d.name),
      paragraphs: ['You have a new message:', d.text],
      action: { label: 'Open the conversation', link: d.link },
    }),
    kk: (d) => ({
      subject: 'Брокерден жаңа хабарлама',
      greeting: COMMON.kk.hello(d.name),
      paragraphs: ['Сізге хабарлама келді:', d.text],
      action: { label: 'Хат алмасуды ашу', link: d.link },
    }),
  },
  two_factor_enrolled: {
    ru: (d) => ({
      subject: 'Двухфакторная аутентификация подключена',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['К вашей учётной записи подключена двухфакторная аутентификация.'],
      after: [NOT_YOU.ru],
    }),
  },
  two_factor_reset: {
    ru: (d) => ({
      subject: 'Двухфакторная аутентификация сброшена',
      greeting: COMMON.ru.hello(d.name),
      paragraphs: [
        `${d.by} сбросил(а) двухфакторную аутентификацию вашей учётной записи. При следующем входе подключите её заново.`,
      ],
      after: ['Если вы об этом не просили, сообщите администратору.'],
    }),
  },
  reminders_digest: {
    ru: (d) => ({
      subject: `Напоминания на сегодня: ${d.reminders.length}`,
      greeting: COMMON.ru.hello(d.name),
      paragraphs: ['Ваши напоминания, срок которых наступил или наступает сегодня:'],
      table: { head: ['Когда', 'Клиент', 'Напоминание'], rows: d.reminders.map((r) => [r.at, r.client, r.text]) },
      action: { label: 'Открыть календарь', link: d.link },
      after: ['Дайджест можно отключить в профиле.'],
    }),
  },
};

/** Only http(s) links are ever put in an href (a link is always Mailer.link's, this is a second fence). */
function safeHref(link: string): string {
  return /^https?:\/\//i.test(link) ? link : '#';
}

const COLORS = {
  brand: '#1d3557',
  text: '#1f2933',
  muted: '#52606d',
  line: '#e4e7eb',
  button: '#1565c0',
  page: '#f4f5f7',
};

function paragraphHtml(text: string, style = ''): string {
  return `<p style="margin:0 0 16px;${style}">${escapeHtml(text).replace(/\r?\n/g, '<br>')}</p>`;
}

/**
 * Renders one message: the template in the recipient's language (staff templates, and any language a template lacks,
 * in Russian), as a plain-text part and an HTML part. The HTML is a single-column table layout (mail clients ignore
 * most CSS), with the brand in the header, the legal footer, and, for bulk mail, the unsubscribe link; every value
 * is escaped. Each link stands on its own line in the text part.
 */
export function renderMail<T extends TemplateName>(
  template: T,
  language: MailLanguage,
  data: TemplateData[T],
  ctx: RenderContext,
): RenderedMail {
  const builders = TEMPLATES[template] as unknown as Partial<Record<MailLanguage, (d: TemplateData[T]) => Parts>>;
  const lang: MailLanguage = builders[language] ? language : 'ru';
  const parts = builders[lang]!(data);
  const common = COMMON[lang];
  const subject = `${parts.subject} — ${ctx.brand}`;

  // ---- text
  const text: string[] = [ctx.brand, '', parts.subject, ''];
  if (parts.greeting) text.push(parts.greeting, '');
  for (const p of parts.paragraphs) text.push(p, '');
  if (parts.details?.length) {
    for (const [k, v] of parts.details) text.push(`${k}: ${v}`);
    text.push('');
  }
  if (parts.table?.rows.length) {
    for (const row of parts.table.rows) text.push(`- ${row.join(' — ')}`);
    text.push('');
  }
  if (parts.action) text.push(`${parts.action.label}:`, parts.action.link, '');
  for (const a of parts.after ?? []) text.push(a);
  text.push('', '--', common.auto);
  if (ctx.legal) text.push('', ctx.legal);
  if (ctx.unsubscribeLink) text.push('', common.unsubscribeNote, `${common.unsubscribe}:`, ctx.unsubscribeLink);

  // ---- HTML
  const cell = `padding:8px 12px;border:1px solid ${COLORS.line};text-align:left;vertical-align:top;`;
  const body: string[] = [
    `<h1 style="margin:0 0 16px;font-size:20px;line-height:1.3;color:${COLORS.text};">${escapeHtml(parts.subject)}</h1>`,
  ];
  if (parts.greeting) body.push(paragraphHtml(parts.greeting));
  for (const p of parts.paragraphs) body.push(paragraphHtml(p));
  if (parts.details?.length) {
    body.push(
      `<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:0 0 16px;">`,
      ...parts.details.map(
        ([k, v]) =>
          `<tr><th scope="row" style="${cell}font-weight:normal;color:${COLORS.muted};">${escapeHtml(k)}</th>` +
          `<td style="${cell}font-weight:bold;">${escapeHtml(v)}</td></tr>`,
      ),
      '</table>',
    );
  }
  if (parts.table?.rows.length) {
    body.push(
      `<table cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%;margin:0 0 16px;font-size:14px;">`,
      `<thead><tr>${parts.table.head.map((h) => `<th scope="col" style="${cell}background:${COLORS.page};">${escapeHtml(h)}</th>`).join('')}</tr></thead>`,
      '<tbody>',
      ...parts.table.rows.map(
        (row) => `<tr>${row.map((c) => `<td style="${cell}">${escapeHtml(c)}</td>`).join('')}</tr>`,
      ),
      '</tbody></table>',
    );
  }
  if (parts.action) {
    const href = escapeHtml(safeHref(parts.action.link));
    body.push(
      `<p style="margin:8px 0 24px;"><a href="${href}" style="display:inline-block;padding:12px 24px;background:${COLORS.button};color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold;">${escapeHtml(parts.action.label)}</a></p>`,
      `<p style="margin:0 0 16px;font-size:13px;color:${COLORS.muted};">${escapeHtml(common.fallback)}<br><a href="${href}" style="color:${COLORS.button};word-break:break-all;">${escapeHtml(parts.action.link)}</a></p>`,
    );
  }
  for (const a of parts.after ?? []) body.push(paragraphHtml(a, `font-size:14px;color:${COLORS.muted};`));

  const footer: string[] = [`<p style="margin:0 0 8px;">${escapeHtml(common.auto)}</p>`];
  if (ctx.legal) footer.push(`<p style="margin:0 0 8px;">${escapeHtml(ctx.legal).replace(/\r?\n/g, '<br>')}</p>`);
  if (ctx.unsubscribeLink) {
    footer.push(
      `<p style="margin:0;">${escapeHtml(common.unsubscribeNote)} <a href="${escapeHtml(safeHref(ctx.unsubscribeLink))}" style="color:${COLORS.muted};">${escapeHtml(common.unsubscribe)}</a></p>`,
    );
  }

  const html = [
    '<!DOCTYPE html>',
    `<html lang="${lang}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title></head>`,
    `<body style="margin:0;padding:0;background:${COLORS.page};">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:${COLORS.page};"><tr><td align="center" style="padding:24px 12px;">`,
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="width:100%;max-width:600px;background:#ffffff;border-radius:8px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:${COLORS.text};">`,
    `<tr><td style="padding:20px 24px;background:${COLORS.brand};color:#ffffff;font-size:20px;font-weight:bold;border-radius:8px 8px 0 0;">${escapeHtml(ctx.brand)}</td></tr>`,
    `<tr><td style="padding:24px;">${body.join('')}</td></tr>`,
    `<tr><td style="padding:16px 24px;border-top:1px solid ${COLORS.line};font-size:12px;line-height:1.5;color:${COLORS.muted};">${footer.join('')}</td></tr>`,
    '</table></td></tr></table></body></html>',
  ].join('\n');

  return { subject, text: text.join('\n'), html };
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
