import type { Lang } from '@brokerage/shared';

/**
 * Every business error the API answers with, in the languages of the interface. The detail is chosen by the
 * caller's Accept-Language (Russian by default); `code` stays the same in every language for programs.
 */
export const ERROR_MESSAGES = {
  bad_json: { ru: 'Некорректный JSON в теле запроса', en: 'The request body is not valid JSON' },
  body_too_large: { ru: 'Тело запроса слишком большое', en: 'The request body is too large' },
  bad_url: { ru: 'Некорректный адрес запроса', en: 'Malformed request URL' },
  invalid_character: { ru: '{field}: недопустимый символ', en: '{field}: contains a character that is not allowed' },
  json_too_deep: {
    ru: 'Тело запроса вложено слишком глубоко (не более {max} уровней)',
    en: 'The request body is nested too deeply (at most {max} levels)',
  },
  unsupported_media_type: { ru: 'Неподдерживаемый тип содержимого', en: 'Unsupported content type' },
  not_found: { ru: 'Не найдено', en: 'Not found' },
  route_not_found: { ru: 'Маршрут {route} не найден', en: 'Route {route} not found' },
  not_authenticated: { ru: 'Требуется вход в систему', en: 'Not authenticated' },
  forbidden: { ru: 'Недостаточно прав для этого действия', en: 'You do not have permission for this action' },
  ip_not_allowed: {
    ru: 'Доступ с IP-адреса {ip} запрещен',
    en: 'Access from IP address {ip} is not allowed',
  },
  bad_origin: { ru: 'Запрос с чужого источника отклонен', en: 'Cross-origin request refused' },
  websocket_upgrade_required: {
    ru: 'Этот адрес принимает только WebSocket-соединения',
    en: 'This address accepts WebSocket connections only',
  },
  rate_limited: { ru: 'Слишком много запросов, попробуйте позже', en: 'Too many requests, try again later' },
  login_invalid: { ru: 'Неверный email или пароль', en: 'Incorrect email or password' },
  login_delayed: {
    ru: 'Слишком много неудачных попыток входа. Повторите через {seconds} с.',
    en: 'Too many failed sign-in attempts. Try again in {seconds} s.',
  },
  // Two-factor sign-in (issue 13 item 1)
  challenge_invalid: {
    ru: 'Шаг входа устарел или уже использован. Войдите заново с паролем.',
    en: 'This sign-in step has expired or was already used. Sign in again with your password.',
  },
  otp_invalid: { ru: 'Неверный код', en: 'Incorrect code' },
  otp_attempts_exhausted: {
    ru: 'Слишком много попыток ввода кода. Войдите заново с паролем.',
    en: 'Too many codes tried. Sign in again with your password.',
  },
  otp_account_limited: {
    ru: 'Слишком много неверных кодов для этой учётной записи. Повторите через {seconds} с.',
    en: 'Too many wrong codes for this account. Try again in {seconds} s.',
  },
  password_invalid: { ru: 'Неверный пароль', en: 'Incorrect password' },
  two_factor_already_enabled: {
    ru: 'Двухфакторный вход уже включен',
    en: 'Two-factor sign-in is already enabled',
  },
  two_factor_not_started: {
    ru: 'Сначала начните подключение двухфакторного входа',
    en: 'Start the two-factor enrollment first',
  },
  two_factor_staff_only: {
    ru: 'Двухфакторный вход доступен только сотрудникам',
    en: 'Two-factor sign-in is for staff only',
  },
  email_taken: { ru: 'Пользователь с таким email уже зарегистрирован', en: 'Email already registered' },
  phone_taken_user: {
    ru: 'Пользователь с таким номером телефона уже зарегистрирован',
    en: 'User with this phone number is already registered',
  },
  phone_taken_client: {
    ru: 'Клиент с таким номером телефона уже существует',
    en: 'Client with this phone number already exists',
  },
  cannot_create_superadmin: {
    ru: 'Только суперадмин может назначать роль суперадмина',
    en: 'Only a superadmin can grant the superadmin role',
  },
  cannot_edit_superadmin: {
    ru: 'Только суперадмин может изменять суперадмина',
    en: 'Only a superadmin can change a superadmin',
  },
  cannot_change_own_role: { ru: 'Нельзя изменить собственную роль', en: 'You cannot change your own role' },
  cannot_delete_superadmin: { ru: 'Суперадмина удалить нельзя', en: 'A superadmin cannot be deleted' },
  cannot_delete_self: { ru: 'Нельзя удалить собственную учетную запись', en: 'You cannot delete your own account' },
  user_not_found: { ru: 'Сотрудник не найден', en: 'Staff member not found' },
  ip_invalid: { ru: 'Некорректный формат IP-адреса', en: 'Invalid IP address format' },
  ip_exists: { ru: 'Этот IP-адрес уже есть в списке', en: 'This IP address is already in the list' },
  ip_would_lock_out: {
    ru: 'Ваш текущий адрес {ip} не входит в список: после этого изменения вы потеряете доступ. Сначала добавьте свой адрес.',
    en: 'Your current address {ip} is not covered: this change would lock you out. Add your own address first.',
  },
  ip_entry_not_found: { ru: 'Запись не найдена', en: 'Entry not found' },
  // Money and trading (decisions.md D1–D3)
  trading_disabled: { ru: 'Торговля по счету приостановлена', en: 'Trading on this account is suspended' },
  trade_amount_too_small: { ru: 'Минимальная сумма сделки: {min}', en: 'Minimum trade amount: {min}' },
  trade_amount_too_large: { ru: 'Максимальная сумма сделки: {max}', en: 'Maximum trade amount: {max}' },
  insufficient_trade_balance: {
    ru: 'Не достаточно баланса на торговом счету',
    en: 'Not enough balance on the trading account',
  },
  price_unavailable: { ru: 'Котировка недоступна, попробуйте позже', en: 'Quote unavailable, please try again later' },
  unknown_asset: { ru: 'Неизвестный актив: {asset}', en: 'Unknown asset: {asset}' },
  duration_not_offered: {
    ru: 'Недопустимая длительность сделки: {duration} с. Доступные значения (с): {allowed}',
    en: 'Trade duration {duration} s is not offered. Allowed (s): {allowed}',
  },
  insufficient_funds: { ru: 'Недостаточно средств на торговом счете', en: 'Insufficient funds on the trading account' },
  trading_account_not_found: { ru: 'Торговый аккаунт не найден', en: 'Trading account not found' },
  trade_not_found: { ru: 'Сделка не найдена', en: 'Trade not found' },
  trade_not_active: {
    ru: 'Сделка уже закрыта: аннулировать можно только активную сделку',
    en: 'The trade is already closed: only an active trade can be voided',
  },
  balance_amount_invalid: { ru: 'Введите корректную сумму', en: 'Enter a valid amount' },
  balance_change_too_large: {
    ru: 'Изменение баланса больше допустимого: не более ${max} за одно изменение',
    en: 'The balance change is larger than allowed: at most ${max} at a time',
  },
  withdraw_account_blocked: {
    ru: 'Торговый счет заблокирован: вывод средств недоступен',
    en: 'The trading account is blocked: withdrawals are not available',
  },
  withdraw_identity_unverified: {
    ru: 'Вывод средств станет доступен после подтверждения личности сотрудником',
    en: 'Withdrawals become available once staff have confirmed your identity',
  },
  withdraw_approver_balance_change: {
    ru: 'Вы не можете одобрить эту заявку: за последние 30 дней вы меняли баланс этого счета. Одобрить должен другой сотрудник',
    en: "You cannot approve this request: you changed this account's balance in the last 30 days. Another staff member must approve it",
  },
  withdraw_approver_deposit_recorded: {
    ru: 'Вы не можете одобрить эту заявку: за последние 30 дней вы вносили депозит этого клиента. Одобрить должен другой сотрудник',
    en: 'You cannot approve this request: you recorded a deposit of this client in the last 30 days. Another staff member must approve it',
  },
  withdraw_approver_deposit_edited: {
    ru: 'Вы не можете одобрить эту заявку: за последние 30 дней вы изменяли депозит этого клиента. Одобрить должен другой сотрудник',
    en: 'You cannot approve this request: you edited a deposit of this client in the last 30 days. Another staff member must approve it',
  },
  withdraw_approver_identity_verified: {
    ru: 'Вы не можете одобрить эту заявку: за последние 30 дней вы подтверждали личность этого клиента. Одобрить должен другой сотрудник',
    en: "You cannot approve this request: you confirmed this client's identity in the last 30 days. Another staff member must approve it",
  },
  withdraw_approver_password_changed: {
    ru: 'Вы не можете одобрить эту заявку: за последние 30 дней вы меняли пароль этого клиента. Одобрить должен другой сотрудник',
    en: "You cannot approve this request: you changed this client's password in the last 30 days. Another staff member must approve it",
  },
  // Issue 20 findings 1 and 4
  withdraw_approver_login_created: {
    ru: 'Вы не можете одобрить эту заявку: за последние 30 дней вы создали логин этого клиента. Одобрить должен другой сотрудник',
    en: "You cannot approve this request: you created this client's login in the last 30 days. Another staff member must approve it",
  },
  withdraw_no_second_approver: {
    ru: 'Ваше одобрение было бы первым, а второе дать некому: нужен ещё один сотрудник с правом финансового одобрения, не работавший с деньгами клиента 30 дней',
    en: "Your approval would be the first, and nobody could give the second: it needs another staff member with the finance approval right who has not worked with the client's money for 30 days",
  },
  identity_verifier_created_login: {
    ru: 'Вы создали логин этого клиента: подтвердить его личность должен другой сотрудник с правом финансового одобрения',
    en: "You created this client's login: another staff member with the finance approval right must confirm the identity",
  },
  dashboard_unknown_manager: {
    ru: 'manager_id: такого сотрудника нет',
    en: 'manager_id: no such staff member',
  },
  identity_already_verified: {
    ru: 'Личность клиента уже подтверждена',
    en: "The client's identity is already confirmed",
  },
  client_not_found: { ru: 'Клиент не найден', en: 'Client not found' },
  client_not_registered: {
    ru: 'У клиента нет пользователя торговой платформы: сначала зарегистрируйте его',
    en: 'The client has no trading platform user: register one first',
  },
  asset_not_found: { ru: 'Актив {symbol} не найден', en: 'Asset {symbol} not found' },
  bad_date_range: {
    ru: 'Начало периода должно быть раньше его конца',
    en: 'The start of the period must be before its end',
  },
  date_out_of_range: {
    ru: '{field}: дата должна быть между {min} и {max}',
    en: '{field}: the date must be between {min} and {max}',
  },
  idempotency_key_invalid: {
    ru: 'Некорректный заголовок Idempotency-Key: от 1 до 200 печатных символов ASCII',
    en: 'Invalid Idempotency-Key header: 1 to 200 printable ASCII characters',
  },
  idempotency_key_reused: {
    ru: 'Этот Idempotency-Key уже использован с другим запросом',
    en: 'This Idempotency-Key was already used with a different request',
  },
  // Withdrawal requests (client-platform.md §5 in its order; back-office.md §2.9, §4; D3, D7)
  withdraw_amount_not_positive: { ru: 'Сумма должна быть больше 0', en: 'The amount must be greater than 0' },
  withdraw_amount_invalid: {
    ru: 'Сумма указывается в долларах, не более 2 знаков после запятой',
    en: 'The amount is in dollars, with at most 2 decimals',
  },
  withdraw_amount_too_small: { ru: 'Минимальная сумма вывода: {min}', en: 'Minimum withdrawal amount: {min}' },
  withdraw_insufficient_funds: {
    ru: 'Недостаточно средств на счете. Доступно: {available}, запрошено: {requested}',
    en: 'Insufficient funds on the account. Available: {available}, requested: {requested}',
  },
  card_number_invalid: { ru: 'Неверный номер карты', en: 'Invalid card number' },
  card_holder_required: { ru: 'Укажите имя держателя карты', en: 'Enter the card holder name' },
  card_holder_invalid: {
    ru: 'Имя держателя карты — только буквы, пробел, точка, дефис и апостроф, как на карте',
    en: 'The card holder name takes letters, spaces, dots, hyphens and apostrophes only, as on the card',
  },
  card_expiry_invalid: {
    ru: 'Срок действия карты — в формате ММ/ГГ, месяц от 01 до 12',
    en: 'The card expiry is MM/YY, with a month from 01 to 12',
  },
  card_expired: { ru: 'Срок действия карты истек', en: 'The card has expired' },
  withdraw_request_not_found: { ru: 'Заявка на вывод не найдена', en: 'Withdrawal request not found' },
  withdraw_request_already_approved: {
    ru: 'Заявка уже одобрена: одобрить или отклонить можно только заявку на рассмотрении',
    en: 'The request has already been approved: only a pending request can be approved or rejected',
  },
  withdraw_request_already_rejected: {
    ru: 'Заявка уже отклонена: одобрить или отклонить можно только заявку на рассмотрении',
    en: 'The request has already been rejected: only a pending request can be approved or rejected',
  },
  // Four-eyes withdrawals and manual credits (D20)
  withdraw_second_approver_same: {
    ru: 'Вы уже одобрили эту заявку: второе одобрение должен дать другой сотрудник',
    en: 'You already approved this request: the second approval must come from another staff member',
  },
  withdraw_second_approval_forbidden: {
    ru: 'Второе одобрение выплаты требует права подтверждать финансовые операции (finance.approve)',
    en: 'The second approval of a payout needs the permission to approve finance operations (finance.approve)',
  },
  manual_credit_not_found: { ru: 'Начисление не найдено', en: 'Manual credit not found' },
  manual_credit_own: {
    ru: 'Нельзя подтвердить собственное начисление: это должен сделать другой сотрудник',
    en: 'You cannot confirm your own credit: another staff member must confirm it',
  },
  manual_credit_already_confirmed: {
    ru: 'Начисление уже подтверждено',
    en: 'The credit has already been confirmed',
  },
  manual_credit_already_cancelled: {
    ru: 'Начисление уже отменено',
    en: 'The credit has already been cancelled',
  },
  credit_amount_changed: {
    ru: 'Сумма начисления изменилась: вы подтверждаете {seen}, а к зачислению теперь {amount}. Обновите список и проверьте сумму',
    en: 'The amount of the credit has changed: you confirm {seen}, it now stands at {amount}. Reload the list and check the amount',
  },
  // Voids take two people (issue 20 finding 11)
  void_request_not_found: { ru: 'Запрос на аннулирование не найден', en: 'Void request not found' },
  void_request_pending: {
    ru: 'Аннулирование этой сделки уже ждет подтверждения второго сотрудника',
    en: "This trade's void is already waiting for a second staff member's confirmation",
  },
  void_request_own: {
    ru: 'Нельзя подтвердить аннулирование, которое вы запросили: это должен сделать другой сотрудник',
    en: 'You cannot confirm a void you asked for: another staff member must confirm it',
  },
  void_request_already_confirmed: {
    ru: 'Аннулирование уже подтверждено',
    en: 'The void has already been confirmed',
  },
  void_request_already_rejected: {
    ru: 'Запрос на аннулирование уже отклонен',
    en: 'The void request has already been rejected',
  },
  void_request_lapsed: {
    ru: 'Сделка закрылась по экспирации раньше, чем аннулирование подтвердили: запрос больше не действует, ничего не возвращено',
    en: 'The trade settled at expiry before the void was confirmed: the request has lapsed and nothing was returned',
  },
  void_trade_expired: {
    ru: 'Срок сделки уже истек: ее исход определен котировкой на момент экспирации, аннулировать ее нельзя',
    en: 'The trade has reached its expiry: its outcome is fixed by the price at expiry and it can no longer be voided',
  },
  void_request_withdrawn: {
    ru: 'Запрос на аннулирование уже отозван',
    en: 'The void request has already been withdrawn',
  },
  void_request_withdraw_not_own: {
    ru: 'Отозвать запрос на аннулирование может только сотрудник, который его создал',
    en: 'Only the staff member who asked for the void can withdraw the request',
  },
  // Deposit methods and client messages (back-office.md §2.15)
  deposit_method_not_found: { ru: 'Способ пополнения не найден', en: 'Deposit method not found' },
  deposit_intent_amount_too_small: {
    ru: 'Сумма пополнения должна быть не меньше {min}',
    en: 'The top-up amount must be at least {min}',
  },
  deposit_intent_amount_too_large: {
    ru: 'Сумма пополнения должна быть не больше {max}',
    en: 'The top-up amount must be at most {max}',
  },
  deposit_intent_amount_invalid: {
    ru: 'Сумма пополнения: не более двух знаков после запятой',
    en: 'The top-up amount: at most two decimal places',
  },
  message_not_found: { ru: 'Сообщение не найдено', en: 'Message not found' },
  // Issue 22 §6: the support conversation
  support_rate_limited: {
    ru: 'Не более {max} сообщений в час. Следующее можно отправить через {minutes} мин.',
    en: 'At most {max} messages an hour. You can send the next one in {minutes} min.',
  },
  support_client_missing: {
    ru: 'Ваша учетная запись не связана с карточкой клиента: сообщение некому доставить',
    en: 'Your account is not linked to a client record, so the message has nowhere to go',
  },
  // Writing clients (back-office.md §2.5, §2.6)
  cannot_change_manager: {
    ru: 'Недостаточно прав для смены ответственного менеджера',
    en: 'You do not have permission to change the assigned manager',
  },
  manager_not_found: {
    ru: 'Менеджер не найден: назначить можно только действующего сотрудника',
    en: 'Manager not found: only an active staff member can be assigned',
  },
  // Lead file import (back-office.md §2.11 'File upload', §5; issue 10)
  upload_no_file: {
    ru: 'Прикрепите файл в поле file (multipart/form-data)',
    en: "Attach the file in the multipart/form-data field 'file'",
  },
  upload_malformed: {
    ru: 'Запрос с файлом поврежден или прерван: {reason}',
    en: 'The upload request is malformed or was interrupted: {reason}',
  },
  upload_unsupported_type: {
    ru: 'Выберите файл CSV или Excel (.csv, .xlsx, .xls): «{name}» не подходит',
    en: 'Please select a CSV or Excel file (.csv, .xlsx, .xls): "{name}" is not one',
  },
  // The lead import's checks of a file's inside (cells in order, row width) and of reading .xls in a child process.
  upload_cell_out_of_order: {
    ru: 'Строка {row} листа: ячейка в столбце {column} стоит не правее предыдущей ({previous}). Файл поврежден или записан не программой электронных таблиц: откройте его в Excel и сохраните заново',
    en: 'Sheet row {row}: the cell in column {column} is not to the right of the one before it ({previous}). The file is damaged or was not written by a spreadsheet program: open it in Excel and save it again',
  },
  upload_row_too_wide: {
    ru: 'Строка {row} листа: больше {max} ячеек (столько столбцов у листа Excel)',
    en: 'Sheet row {row}: more than {max} cells (the columns of an Excel sheet)',
  },
  upload_xls_too_slow: {
    ru: 'Книгу «{name}» не удалось прочитать за {seconds} с: сохраните ее как .xlsx или CSV UTF-8 и загрузите снова',
    en: 'The workbook "{name}" could not be read within {seconds} s: save it as .xlsx or CSV UTF-8 and upload it again',
  },
  upload_xls_too_big: {
    ru: 'Книге «{name}» нужно больше {mb} МБ памяти, чем отведено на чтение .xls: сохраните ее как .xlsx или CSV UTF-8 и загрузите снова',
    en: 'The workbook "{name}" needs more than the {mb} MB of memory set aside for reading .xls: save it as .xlsx or CSV UTF-8 and upload it again',
  },
  upload_xls_busy: {
    ru: 'Сейчас читаются другие книги .xls: повторите через {seconds} с (или загрузите файл как .xlsx или CSV)',
    en: 'Other .xls workbooks are being read: try again in {seconds} s (or upload the file as .xlsx or CSV)',
  },
  upload_csv_unavailable: {
    ru: 'Загрузка CSV временно недоступна: сервер запущен с несовместимой версией библиотеки чтения CSV. Загрузите файл как .xlsx или сообщите администратору',
    en: 'CSV upload is unavailable: the server runs an incompatible version of its CSV reader. Upload the file as .xlsx, or tell the administrator',
  },
  upload_too_large: { ru: 'Файл больше {max} МБ', en: 'The file is larger than {max} MB' },
  upload_empty_file: { ru: 'Файл «{name}» пустой', en: 'The file "{name}" is empty' },
  upload_wrong_content: {
    ru: 'Файл «{name}» — это {found}, а не {expected}',
    en: 'The file "{name}" is {found}, not {expected}',
  },
  upload_not_xlsx: {
    ru: 'Файл «{name}» не является книгой Excel (.xlsx) или поврежден',
    en: 'The file "{name}" is not an Excel workbook (.xlsx) or is damaged',
  },
  upload_not_xls: {
    ru: 'Файл «{name}» не является книгой Excel 97–2003 (.xls) или поврежден',
    en: 'The file "{name}" is not an Excel 97–2003 workbook (.xls) or is damaged',
  },
  upload_csv_binary: {
    ru: 'Файл «{name}» содержит двоичные данные, а не текст CSV',
    en: 'The file "{name}" holds binary data, not CSV text',
  },
  upload_csv_encoding: {
    ru: 'Не удалось определить кодировку файла «{name}» (читаются UTF-8, UTF-16 и Windows-1251): сохраните его как «CSV UTF-8»',
    en: 'The encoding of the file "{name}" could not be decided (UTF-8, UTF-16 and Windows-1251 are read): save it as "CSV UTF-8"',
  },
  upload_csv_malformed: {
    ru: 'Ошибка CSV в строке {line}: {reason}',
    en: 'CSV error on line {line}: {reason}',
  },
  upload_no_header: {
    ru: 'В файле нет строки заголовков (full name, Email, Phone, Country)',
    en: 'The file has no header row (full name, Email, Phone, Country)',
  },
  upload_missing_columns: {
    ru: 'В файле нет обязательных столбцов: {columns}',
    en: 'Missing required columns: {columns}',
  },
  upload_unpacked_too_large: {
    ru: 'Книга «{name}» в распакованном виде больше {max} МБ',
    en: 'The workbook "{name}" unpacks to more than {max} MB',
  },
  upload_too_many_rows: {
    ru: 'В файле больше {max} строк: разделите его на несколько файлов',
    en: 'The file has more than {max} rows: split it into several files',
  },
  upload_rejected_not_found: {
    ru: 'Файл отклоненных строк не найден: он хранится {hours} ч после загрузки',
    en: 'Rejected rows not found: they are kept for {hours} h after the upload',
  },
  // Deposits (back-office.md §2.6, §2.10; D3)
  deposit_not_found: { ru: 'Депозит не найден', en: 'Deposit not found' },
  deposit_edit_overdraws: {
    ru: 'Нельзя уменьшить депозит: на торговом счете {balance}, а списать нужно {amount} — баланс стал бы меньше 0',
    en: 'The deposit cannot be reduced: the trading account holds {balance} and {amount} would have to be taken back, leaving the balance below 0',
  },
  deposit_delete_overdraws: {
    ru: 'Нельзя удалить депозит: на торговом счете {balance}, а списать нужно {amount} — баланс стал бы меньше 0',
    en: 'The deposit cannot be deleted: the trading account holds {balance} and {amount} would have to be taken back, leaving the balance below 0',
  },
  // Comments and reminders (back-office.md §2.6, §2.7)
  comment_not_found: { ru: 'Комментарий не найден', en: 'Comment not found' },
  client_id_mismatch: {
    ru: 'client_id в теле запроса не совпадает с клиентом в адресе',
    en: 'client_id in the body does not match the client in the path',
  },
  reminder_not_found: { ru: 'Напоминание не найдено', en: 'Reminder not found' },
  reminder_in_past: {
    ru: 'Время напоминания уже прошло: выберите время в будущем',
    en: 'The reminder time has already passed: choose a time in the future',
  },
  notification_not_found: { ru: 'Уведомление не найдено', en: 'Notification not found' },
  client_already_registered: {
    ru: 'Клиент уже зарегистрирован как пользователь',
    en: 'The client is already registered as a user',
  },
  email_registered_unlinkable: {
    ru: 'Пользователь существует, но создать торговый аккаунт не удалось. Обратитесь к администратору.',
    en: 'User exists, but failed to create trading account. Contact the administrator.',
  },
  fundamentals_stocks_only: {
    ru: 'Фундаментальный анализ доступен только для акций',
    en: 'Fundamental analysis is available for stocks only',
  },
  fundamentals_unavailable: {
    ru: 'Нет фундаментальных данных для {symbol}',
    en: 'No fundamental data for {symbol}',
  },
  site_content_unavailable: {
    ru: 'Содержимое сайта временно недоступно',
    en: 'The site content is temporarily unavailable',
  },
  // Affiliates, postbacks and the API integration tab (back-office.md §2.11, §2.13; D17)
  affiliate_not_found: { ru: 'Аффилейт не найден', en: 'Affiliate not found' },
  affiliate_no_webhook: {
    ru: 'Сначала укажите Webhook URL: секрет подписывает его постбэки',
    en: 'Set a webhook URL first: the secret signs its postbacks',
  },
  url_invalid: { ru: '{field}: некорректный URL', en: '{field}: not a valid URL' },
  url_not_https: {
    ru: '{field}: адрес должен начинаться с https://',
    en: '{field}: the address must start with https://',
  },
  url_private_address: {
    ru: '{field}: {host} указывает на частный, локальный или link-local адрес ({address}); такие адреса запрещены',
    en: '{field}: {host} resolves to a private, loopback or link-local address ({address}); such addresses are not allowed',
  },
  url_unresolvable: {
    ru: '{field}: не удалось найти адрес хоста {host}',
    en: '{field}: the host {host} could not be resolved',
  },
  outbound_ok: { ru: 'Соединение установлено: HTTP {status}', en: 'Connected: HTTP {status}' },
  outbound_http_error: { ru: 'Сервер ответил HTTP {status}', en: 'The server answered HTTP {status}' },
  outbound_timeout: { ru: 'Нет ответа за {seconds} с', en: 'No answer within {seconds} s' },
  outbound_refused: { ru: 'Соединение отклонено ({error})', en: 'Connection refused ({error})' },
  outbound_tls: { ru: 'Ошибка TLS-сертификата ({error})', en: 'TLS certificate error ({error})' },
  outbound_failed: { ru: 'Не удалось соединиться ({error})', en: 'Could not connect ({error})' },
  // Affiliate tokens and the external API (back-office.md §2.11, §7, §8; D13, D17)
  affiliate_token_not_found: { ru: 'Токен не найден', en: 'Token not found' },
  whitelist_entry_invalid: {
    ru: 'IP whitelist: «{entry}» — не IPv4/IPv6-адрес и не CIDR-диапазон',
    en: 'IP whitelist: "{entry}" is not an IPv4/IPv6 address or a CIDR range',
  },
  access_denied: { ru: 'Доступ запрещен', en: 'Access denied' },
  phone_invalid: {
    ru: '{field}: некорректный номер телефона',
    en: '{field}: not a valid phone number (give it with its country code, e.g. +77001234567)',
  },
  // Transparency (issue 14)
  tick_span_too_long: {
    ru: 'Период котировок не может превышать {max} минут (from … to)',
    en: 'The quote span may be at most {max} minutes (from … to)',
  },
  // The client's account statement (issue 14)
  statement_too_large: {
    ru: 'В периоде {total} операций, в файл помещается не более {max}: выберите период короче',
    en: 'The period holds {total} entries, a file takes at most {max}: choose a shorter period',
  },
  // Trade proofs (issue 30 §2, D27)
  trade_proof_active: {
    ru: 'Сделка ещё открыта: доказательство появится после её расчёта',
    en: 'The trade is still open: its proof is available once it has settled',
  },
  trade_proof_predates_log: {
    ru: 'Сделка открыта до появления журнала цен: её цены нельзя доказать',
    en: 'The trade predates the price log (it opened before the log existed): its prices cannot be proven',
  },
  trade_proof_no_head: {
    ru: 'Нет подписанного заголовка журнала, опубликованного до расчёта сделки и покрывающего её котировки',
    en: "No signed tree head published at or before the trade's settlement covers its ticks",
  },
  trade_proof_ticks_missing: {
    ru: 'Котировки этой сделки не сохранены: доказательство построить нельзя',
    en: "This trade's ticks are not stored: its proof cannot be made",
  },
  trade_proofs_too_many: {
    ru: 'В периоде {total} сделок, в файл помещается не более {max}: выберите период короче',
    en: 'The period holds {total} trades, a file takes at most {max}: choose a shorter period',
  },
  // The price log's public answers (issue 30 §1, D27)
  price_log_no_head: {
    ru: 'Журнал цен ещё не опубликовал ни одного подписанного заголовка',
    en: 'The price log has not published a signed tree head yet',
  },
  price_log_head_not_found: {
    ru: 'Нет опубликованного заголовка журнала цен с размером {size}',
    en: 'No published tree head of the price log has size {size}',
  },
  price_log_consistency_order: {
    ru: 'Размер first ({first}) должен быть не больше second ({second})',
    en: 'first ({first}) must not be larger than second ({second})',
  },
  // Issue 22 §1: the outgoing mail page and the unsubscribe link
  mail_not_found: { ru: 'Письмо не найдено', en: 'Message not found' },
  unsubscribe_link_invalid: {
    ru: 'Ссылка для отписки недействительна или устарела. Рассылку можно отключить в профиле.',
    en: 'This unsubscribe link is not valid or has expired. You can turn such mail off in your profile.',
  },
  internal: { ru: 'Внутренняя ошибка сервера', en: 'Internal server error' },
  service_unavailable: { ru: 'Сервис временно недоступен', en: 'Service temporarily unavailable' },
  // Issue 22 §2–§4: links from e-mails, verified addresses, password reset, staff invitations
  link_invalid: {
    ru: 'Ссылка недействительна. Запросите новое письмо.',
    en: 'This link is not valid. Ask for a new e-mail.',
  },
  link_used: {
    ru: 'Эта ссылка уже использована. Запросите новое письмо, если нужно.',
    en: 'This link was already used. Ask for a new e-mail if you need one.',
  },
  link_expired: {
    ru: 'Срок действия ссылки истёк. Запросите новое письмо.',
    en: 'This link has expired. Ask for a new e-mail.',
  },
  email_already_verified: { ru: 'Адрес email уже подтверждён', en: 'The e-mail address is already verified' },
  resend_too_soon: {
    ru: 'Письмо уже отправлено. Повторить можно через {seconds} с.',
    en: 'The e-mail was just sent. You can send it again in {seconds} s.',
  },
  resend_daily_limit: {
    ru: 'Сегодня письмо отправлялось слишком часто. Повторите завтра.',
    en: 'The e-mail was sent too many times today. Try again tomorrow.',
  },
  email_unverified: {
    ru: 'Сначала подтвердите адрес email: откройте ссылку из письма (его можно отправить ещё раз).',
    en: 'Verify your e-mail address first: open the link in the e-mail (you can have it sent again).',
  },
  password_wrong: { ru: 'Неверный текущий пароль', en: 'The current password is incorrect' },
  password_reset_limited: {
    ru: 'Слишком много запросов на сброс пароля. Повторите через {seconds} с.',
    en: 'Too many password reset requests. Try again in {seconds} s.',
  },
  not_invited: {
    ru: 'Сотрудник уже задал пароль: приглашение не нужно',
    en: 'This staff member has already set a password; no invitation is needed',
  },
  // Issue 21 §1, §5: a lost or slow database, a request past its time bound (503 with Retry-After)
  database_unavailable: {
    ru: 'База данных временно недоступна. Повторите через несколько секунд; повтор с тем же Idempotency-Key безопасен',
    en: 'The database is temporarily unavailable. Try again in a few seconds; a retry with the same Idempotency-Key is safe',
  },
  database_conflict: {
    ru: 'Операция совпала с другой и отменена, ничего не записано. Повторите; повтор с тем же Idempotency-Key безопасен',
    en: 'The operation collided with another and was cancelled; nothing was written. Try again; a retry with the same Idempotency-Key is safe',
  },
  request_timeout: {
    ru: 'Нет ответа за {seconds} с: сервер перегружен или база данных отвечает медленно. Повторите позже; повтор с тем же Idempotency-Key безопасен',
    en: 'No answer within {seconds} s: the server is busy or its database is slow. Try again later; a retry with the same Idempotency-Key is safe',
  },
} as const satisfies Record<string, Record<Lang, string>>;

export type ErrorCode = keyof typeof ERROR_MESSAGES;

export function errorMessage(code: ErrorCode, lang: Lang, params: Record<string, string | number> = {}): string {
  let text: string = ERROR_MESSAGES[code][lang];
  for (const [k, v] of Object.entries(params)) text = text.replaceAll(`{${k}}`, String(v));
  return text;
}

/** ru unless the caller prefers English. */
export function langOf(acceptLanguage: string | undefined): Lang {
  if (!acceptLanguage) return 'ru';
  const first = acceptLanguage.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('en') ? 'en' : 'ru';
}
