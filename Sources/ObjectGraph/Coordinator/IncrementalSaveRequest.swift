import Foundation

/// Changes for one incremental store, as the coordinator hands them over at save: new objects whole (with their
/// permanent IDs), changed objects' changed properties with the version they were read at, deleted objects — the
/// same shape as a context's ``UnsavedChanges``.
public typealias IncrementalSaveRequest = UnsavedChanges
