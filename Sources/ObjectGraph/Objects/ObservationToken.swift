/// Keeps an observation alive; call ``cancel()`` to stop it.
public final class ObservationToken {
    private var cancellation: (() -> Void)?

    init(_ cancellation: @escaping () -> Void) {
        self.cancellation = cancellation
    }

    /// Stops the observation.
    public func cancel() {
        cancellation?()
        cancellation = nil
    }

    deinit { cancellation?() }
}
