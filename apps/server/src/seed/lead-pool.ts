/**
 * Name lists shared by the demo lead seeder (demo-leads.ts, in JS) and the bulk lead generator (bulk.ts, as SQL
 * arrays): [display name, Latin transliteration for the e-mail].
 */
export type Pair = readonly [string, string];
export const KK_MALE: Pair[] = [
  ['Нурлан', 'nurlan'],
  ['Ерлан', 'erlan'],
  ['Асхат', 'askhat'],
  ['Даурен', 'dauren'],
  ['Арман', 'arman'],
  ['Бауыржан', 'bauyrzhan'],
  ['Жандос', 'zhandos'],
  ['Талгат', 'talgat'],
  ['Серік', 'serik'],
  ['Қайрат', 'kairat'],
  ['Ержан', 'erzhan'],
  ['Мұрат', 'murat'],
];
export const KK_FEMALE: Pair[] = [
  ['Айгерим', 'aigerim'],
  ['Гүлнар', 'gulnar'],
  ['Динара', 'dinara'],
  ['Жанар', 'zhanar'],
  ['Әсем', 'asem'],
  ['Айжан', 'aizhan'],
  ['Мадина', 'madina'],
  ['Сәуле', 'saule'],
  ['Ақерке', 'akerke'],
  ['Салтанат', 'saltanat'],
];
