// Package fsguard is the file tools' own safety, independent of the
// permission rules:
//
//   - secrets files are never read: CheckRead refuses .env, *.env and
//     *.env.* (templates such as .env.example read);
//   - read-before-write: a Tracker refuses to overwrite an existing file the
//     session has not read, with one exception — a file under 64 KiB that
//     the session itself created, judged by its birth time (statx);
//   - stale detection: a Tracker refuses to write a file whose content
//     changed on disk since it was last read, compared by SHA-256, so a
//     same-size same-mtime change is caught;
//   - the external-directory boundary: Boundary.Resolve resolves symlinks
//     and "..", expands @name reference aliases and says whether a path
//     lies outside the project (which the permission engine then checks
//     under external_directory).
//
// Security checks return errors and fail closed: a stat or read error is a
// refusal, never a pass.
package fsguard
