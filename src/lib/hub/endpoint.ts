/**
 * The Hugging Face Hub's address, in one place: the default for models, datasets, artifacts and reports, and the one
 * origin a Hub token is sent to without the user naming another.
 */
export const HUB_ORIGIN = 'https://huggingface.co';

/** The same with its trailing slash, as a host in Hub layout is written (`<host><owner>/<name>/resolve/…`). */
export const HUB_HOST = `${HUB_ORIGIN}/`;
