/**
 * Shell integration for Windows shells, kept as strings so the compiled binary carries them. The
 * marks are those of the POSIX scripts (shell-scripts.ts: OSC 6973 ; <nonce> ; A/B/C/D/P).
 *
 * Windows has no descriptor to hand a nonce over on (NONCE_FD), and a process may read another of
 * the same user's memory, so the nonce is in reach of programs in the session in any case; where
 * it is kept differs per shell (see windows-shells.ts).
 */

/** The environment variable the PowerShell script takes its nonce from, and removes at once. */
export const PWSH_NONCE_ENV = "PTYHUB_NONCE";

/**
 * cmd.exe's end marker, `call`ed after each term_exec command: a batch file's line is expanded when
 * it runs, so %ERRORLEVEL% and %CD% are the command's (a typed line is expanded once, before the
 * command runs, and Wine's cmd has no `call echo %^ERRORLEVEL%` late expansion). `exit /b` hands
 * the status back. The mark's prefix and terminator come from the session's environment.
 */
export const CMD_END_SCRIPT = '@<nul set /p "=%__ptyhub_m%D;%ERRORLEVEL%;%CD%%__ptyhub_t%" & exit /b %ERRORLEVEL%\r\n';

/**
 * PowerShell (Windows PowerShell 5.1 and pwsh), run by `-Command` after the user's profile, the
 * way VS Code's shellIntegration.ps1 does it: `prompt` is wrapped to print D (the last line's
 * status), A, the user's prompt, then B; PSConsoleHostReadLine (PSReadLine's hook) is wrapped to
 * print C once a line is read. The status: 0 when `$?` says it succeeded; a native program's
 * `$LASTEXITCODE` when the line failed without a new PowerShell error (a cmdlet's failure adds to
 * $Error, a native exit code does not); 1 otherwise. An empty line (no new history entry) ran no
 * command: its D carries no status.
 */
export const PWSH_SCRIPT = `# ptyhub shell integration for PowerShell: run after the user's profile.
$Global:__ptyhub_nonce = $env:${PWSH_NONCE_ENV}
Remove-Item -Path Env:${PWSH_NONCE_ENV} -ErrorAction SilentlyContinue
if ($Global:__ptyhub_nonce) {
  # ST ends the marks, as in cmd's: Wine's console drops a BEL there.
  function Global:__ptyhub_mark([string]$kind) { "$([char]0x1b)]6973;$Global:__ptyhub_nonce;$kind$([char]0x1b)\\" }
  function Global:__ptyhub_cwd() {
    # Empty outside the file system (a registry drive has no provider path).
    $p = [string]$executionContext.SessionState.Path.CurrentLocation.ProviderPath
    $p = $p.Replace('%', '%25').Replace(';', '%3B').Replace("\`n", '%0A')
    $p.Replace("\`a", '%07').Replace("$([char]0x1b)", '%1B')
  }
  $Global:__ptyhub_user_prompt = $function:prompt
  $Global:__ptyhub_history = -1
  $Global:__ptyhub_error = $null
  function Global:prompt() {
    $ok = $global:?
    $native = $global:LASTEXITCODE
    $out = ''
    $last = Get-History -Count 1
    $id = if ($last) { $last.Id } else { 0 }
    if ($Global:__ptyhub_history -ge 0) {
      if ($id -eq $Global:__ptyhub_history) {
        $out += __ptyhub_mark "D;;$(__ptyhub_cwd)"
      } else {
        $before = $Global:__ptyhub_error
        $newError = $Global:Error.Count -gt 0 -and -not [object]::ReferenceEquals($Global:Error[0], $before)
        $code = if ($ok) { 0 } elseif (-not $newError -and $native -is [int] -and $native -ne 0) { $native } else { 1 }
        $out += __ptyhub_mark "D;$code;$(__ptyhub_cwd)"
      }
    }
    $Global:__ptyhub_history = $id
    $out += __ptyhub_mark 'A'
    if ($Global:__ptyhub_user_prompt) { $out += & $Global:__ptyhub_user_prompt } else { $out += 'PS> ' }
    $out += __ptyhub_mark 'B'
    # The user's prompt may have run a program: $LASTEXITCODE is the line's again.
    if ($global:LASTEXITCODE -ne $native) { $global:LASTEXITCODE = $native }
    $out
  }
  $Global:__ptyhub_readline = $null
  if (Test-Path Function:PSConsoleHostReadLine) { $Global:__ptyhub_readline = $function:PSConsoleHostReadLine }
  function Global:PSConsoleHostReadLine() {
    $line = if ($Global:__ptyhub_readline) { & $Global:__ptyhub_readline } else { $Host.UI.ReadLine() }
    $Global:__ptyhub_error = if ($Global:Error.Count -gt 0) { $Global:Error[0] } else { $null }
    [Console]::Write((__ptyhub_mark 'C'))
    $line
  }
}
`;
