/** Who is calling, as the executor and the module see it. */

/** Who is calling, as the host's authentication established it. @publicApi */
export interface A2ACaller<User = unknown> {
  /** Stable identifier of the caller; every caller shares one subject without authentication. */
  readonly subject: string;
  /** The tenant the caller acts in, if any (by default the one the request names). */
  readonly tenant?: string;
  /** What the host's guard put on the request (`req.user`), untouched; typed by `TaskContext<User>`. */
  readonly user?: User;
  /** Did the host's authentication establish who this is? */
  readonly authenticated?: boolean;
}
