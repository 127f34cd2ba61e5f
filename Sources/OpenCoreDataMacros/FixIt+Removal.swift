import SwiftDiagnostics
import SwiftSyntax

extension FixIt {
    /// A fix-it that deletes the source text in `range`, which lies inside `node`.
    static func removingText(
        _ range: Range<AbsolutePosition>,
        in node: some SyntaxProtocol,
        message: ManagedFixIt
    ) -> FixIt {
        FixIt(message: message, changes: [.replaceText(range: range, with: "", in: Syntax(node))])
    }

    /// A fix-it that deletes a declaration modifier such as `static`, together with the space after it.
    ///
    /// For example, `@Managed static var x: Int` becomes `@Managed var x: Int`.
    static func removing(_ modifier: DeclModifierSyntax) -> FixIt {
        removingText(
            modifier.positionAfterSkippingLeadingTrivia..<modifier.endPosition,
            in: modifier,
            message: .removeModifier(modifier.name.text)
        )
    }
}
