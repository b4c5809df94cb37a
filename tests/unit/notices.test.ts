import { describe, expect, test } from 'vitest';
import { clearNotice, noticesFor, raiseNotice, type Notice } from '../../src/ui/app/notices.ts';

const embedder: Notice = { feature: 'models', key: 'embedder', kind: 'error', message: 'missing onnx/model_quantized.onnx' };
const nli: Notice = { feature: 'benchmark', key: 'nli', kind: 'error', message: 'NLI failed' };

describe('notices keyed by feature', () => {
  test('a notice shows only for its own feature', () => {
    const list = raiseNotice(raiseNotice([], embedder), nli);
    expect(noticesFor(list, ['models'])).toEqual([embedder]);
    expect(noticesFor(list, ['benchmark'])).toEqual([nli]);
    expect(noticesFor(list, ['models', 'benchmark'])).toEqual([embedder, nli]);
  });

  test('the same cause failing again replaces its notice instead of stacking a second one', () => {
    const again = { ...embedder, message: 'host unreachable' };
    const list = raiseNotice(raiseNotice(raiseNotice([], embedder), nli), again);
    expect(list).toEqual([nli, again]);
  });

  test('clearing (dismiss, or the cause fixed) removes only that cause', () => {
    const cross: Notice = { ...embedder, key: 'cross-encoder' };
    const list = [embedder, cross, nli];
    expect(clearNotice(list, 'models', 'embedder')).toEqual([cross, nli]);
    expect(clearNotice(list, 'benchmark', 'embedder')).toEqual(list);
    expect(list).toHaveLength(3); // pure: the input is not changed
  });

  test('a notice about a state shows only while that state is current; one about none always', () => {
    const filters: Notice = { feature: 'search', key: 'filters', kind: 'warn', message: 'Cleared the filter on "party"', scope: 'pieces|q|[]' };
    const link: Notice = { feature: 'search', key: 'link-0', kind: 'warn', message: 'Unknown mode' };
    const list = [link, filters];
    expect(noticesFor(list, ['search'], 'pieces|q|[]')).toEqual([link, filters]);
    // The knowledge base, query or filters changed: the filters notice no longer applies.
    expect(noticesFor(list, ['search'], 'sotu|q|[]')).toEqual([link]);
    // Without a scope (other features' lists) every notice of the feature shows.
    expect(noticesFor(list, ['search'])).toEqual(list);
  });
});
