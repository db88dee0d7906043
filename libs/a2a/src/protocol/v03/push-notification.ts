/**
 * The body of a push notification to a webhook registered over A2A 0.3: the whole Task, in its
 * 0.3 form, as 0.3 servers sent it (`Content-Type: application/json`, the config's `token` in
 * `X-A2A-Notification-Token`). A webhook registered over 1.0 gets a StreamResponse instead.
 */
import { encode } from '../codec.js';
import type { Task } from '../types.js';
import { V03TaskSchema } from './schemas.js';
import { toV03Task } from './translate.js';

/** The JSON to POST (serialise it with `JSON.stringify`). */
export function v03PushNotificationBody(task: Task): Record<string, unknown> {
  return encode(V03TaskSchema, toV03Task(task));
}
