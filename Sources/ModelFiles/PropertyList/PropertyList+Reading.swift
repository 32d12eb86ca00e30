public import Foundation
public import ObjectGraph

extension PropertyList {
    /// Reads a property list in either format, choosing by the first bytes.
    /// - Parameter data: the bytes of a binary (`bplist00`) or XML property list.
    /// - Returns: the value.
    /// - Throws: ``ModelFileError`` naming the offset or line of the problem.
    public static func read(_ data: Data) throws(ModelFileError) -> PropertyList {
        if data.starts(with: Array("bplist".utf8)) {
            var reader = BinaryPropertyListReader(data: data)
            return try reader.read()
        }
        return try XMLPropertyListReader.read(data)
    }
}
