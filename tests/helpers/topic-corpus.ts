/**
 * A small generated corpus for the corpus-trained embedder's tests: documents drawn from four topics' word lists
 * (seeded), so words of one topic co-occur and LSI has structure to find. Not SciFact: fast and in-repo.
 */
import { seededRandom } from '../../src/lib/random.ts';

export const TOPICS = {
  rivers: ['river', 'boat', 'water', 'bank', 'fish', 'bridge', 'stream', 'flood', 'delta', 'current'],
  space: ['planet', 'orbit', 'rocket', 'star', 'moon', 'galaxy', 'comet', 'launch', 'telescope', 'gravity'],
  cells: ['protein', 'cell', 'gene', 'enzyme', 'membrane', 'receptor', 'mutation', 'tumor', 'antibody', 'kinase'],
  music: ['guitar', 'melody', 'rhythm', 'chord', 'piano', 'song', 'concert', 'drum', 'tempo', 'harmony'],
} as const;

export interface TopicDoc { id: string; topic: keyof typeof TOPICS; title: string; text: string }

export function topicCorpus(perTopic = 15, seed = 1): TopicDoc[] {
  const rand = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const docs: TopicDoc[] = [];
  for (const [topic, words] of Object.entries(TOPICS) as [keyof typeof TOPICS, readonly string[]][]) {
    for (let i = 0; i < perTopic; i++) {
      const body = Array.from({ length: 12 + Math.floor(rand() * 10) }, () => pick(words));
      docs.push({ id: `${topic}-${i}`, topic, title: `${pick(words)} ${pick(words)}`, text: `The ${body.join(' ')}, and the ${pick(words)}.` });
    }
  }
  return docs;
}
