/**
 * Fixed benchmark queries for the embedded State of the Union corpus: the kind of thing a user types,
 * spread over 1790–2021 so the matching chunks come from many addresses. Changing this list changes the
 * numbers; keep it stable.
 */
export const SOTU_BENCH_QUERIES: readonly string[] = Object.freeze([
  'emancipation of slaves',
  'tariff on imports',
  'war with Mexico',
  'annexation of Texas',
  'Louisiana purchase',
  'treaty with Great Britain',
  'removal of the Indian tribes west of the Mississippi',
  'charter of the national bank',
  'free coinage of silver and the gold standard',
  'railroad to the Pacific',
  'reconstruction of the southern states',
  'civil service reform',
  'Panama Canal',
  'League of Nations',
  'income tax',
  'unemployment relief during the depression',
  'social security for the aged',
  'attack on Pearl Harbor',
  'atomic energy and nuclear weapons',
  'communism and the Soviet Union',
  'civil rights and the right to vote',
  'war on poverty',
  'war in Vietnam',
  'energy crisis and dependence on foreign oil',
  'inflation and interest rates',
  'balanced budget',
  'health insurance for every American',
  'terrorism and homeland security',
  'weapons of mass destruction in Iraq',
  'climate change',
  'immigration reform and border security',
  'reduction of the public debt',
]);

/** What the app's tests search for besides the list above (tests/e2e/search.test.ts, models.test.ts). */
export const SOTU_APP_QUERIES: readonly string[] = Object.freeze(['slavery', 'tariff', 'tariff on imported goods']);

/** Seed B's example of a query the knowledge base cannot answer: it must be rejected in every mode. */
export const SOTU_JUNK_QUERY = 'Random irrelevant cooking recipe.';
