// The active ISO 4217 currency codes: every alphabetic code of ISO 4217 Table A.1 ("current
// currency & funds code list", the list the maintenance agency SIX publishes for ISO), funds and
// X-codes included. One rule for every currency wagerline accepts: a tenant's default currency and
// an uploaded bet's currency.
//
// Source: Table A.1 as consolidated in the core "currency-codes" data package (datahub),
// data/codes-all.csv, the rows without a withdrawal date, revision of 2026-02-01 (after BGN was
// withdrawn for the euro on 2026-01-01; with XCG, the Caribbean guilder of 2025, and XAD). Not
// Intl.supportedValuesOf('currency'): that is ICU's list, which keeps withdrawn codes and differs
// between Node versions. The npm package currency-codes (2.2.0) carries the list of 2024-06-25.
// Update: replace the list below with the codes of the latest Table A.1 and change the date above.

const ACTIVE = [
  'AED', 'AFN', 'ALL', 'AMD', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BHD', 'BIF',
  'BMD', 'BND', 'BOB', 'BOV', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHE', 'CHF',
  'CHW', 'CLF', 'CLP', 'CNY', 'COP', 'COU', 'CRC', 'CUP', 'CVE', 'CZK', 'DJF', 'DKK', 'DOP', 'DZD',
  'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP', 'GBP', 'GEL', 'GHS', 'GIP', 'GMD', 'GNF', 'GTQ', 'GYD',
  'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IQD', 'IRR', 'ISK', 'JMD', 'JOD', 'JPY', 'KES',
  'KGS', 'KHR', 'KMF', 'KPW', 'KRW', 'KWD', 'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD', 'LSL', 'LYD',
  'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN', 'MXV', 'MYR',
  'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'OMR', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN',
  'PYG', 'QAR', 'RON', 'RSD', 'RUB', 'RWF', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE',
  'SOS', 'SRD', 'SSP', 'STN', 'SVC', 'SYP', 'SZL', 'THB', 'TJS', 'TMT', 'TND', 'TOP', 'TRY', 'TTD',
  'TWD', 'TZS', 'UAH', 'UGX', 'USD', 'USN', 'UYI', 'UYU', 'UYW', 'UZS', 'VED', 'VES', 'VND', 'VUV',
  'WST', 'XAD', 'XAF', 'XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XCD', 'XCG', 'XDR', 'XOF', 'XPD',
  'XPF', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX', 'YER', 'ZAR', 'ZMW', 'ZWG',
] as const;

/** The active ISO 4217 alphabetic codes, upper case. */
export const ISO_4217_CODES: ReadonlySet<string> = new Set(ACTIVE);

/** The code in upper case when it is an active ISO 4217 code (any case), else undefined. */
export function currencyCode(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length !== 3) return undefined;
  const code = value.toUpperCase();
  return ISO_4217_CODES.has(code) ? code : undefined;
}

// ISO 4217 Table A.1's minor unit is 0 for these, and "N.A." for the metals, the bond-market units,
// the SDR, the testing code and "no currency". Bets are taken and paid in hundredths of the tenant's
// currency: in these, a stake of 10.50 or a payout of 12.35 is not an amount a wallet can hold.
const WITHOUT_HUNDREDTHS = new Set([
  'BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV',
  'XAF', 'XOF', 'XPF',
  'XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX',
]);

/** Whether bets can be taken in the currency: its minor unit is hundredths or finer. */
export const takesBetsIn = (code: string): boolean => ISO_4217_CODES.has(code) && !WITHOUT_HUNDREDTHS.has(code);
