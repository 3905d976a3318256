/**
 * The job notice of bash and POSIX sh (dash: `[1] + Done`): a capitalised status; `Running` is only
 * ever listed (by `jobs`), never announced.
 */
export const POSIX_JOB_NOTICE = /^\[\d+\] ?[-+ ]? +(?!Running\b)[A-Z][\w ()/-]*? +\S.*$/;
