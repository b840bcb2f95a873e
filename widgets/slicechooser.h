#pragma once

// Which slices (Python × CUDA version) the grid shows: one toggle per slice present in the
// repository or spec. Several toggled → small multiples in every cell. One always stays on.

#include "analysis/matrixslice.h"

#include <QWidget>
#include <vector>

class QHBoxLayout;
class QScrollArea;
class QToolButton;

namespace rg {

class SliceChooser : public QWidget
{
    Q_OBJECT
public:
    explicit SliceChooser(QWidget* parent = nullptr);

    // Keeps the toggles of slices that still exist; otherwise selects `fallback`.
    void setSlices(const std::vector<MatrixSlice>& available,
                   const std::vector<MatrixSlice>& selected);
    std::vector<MatrixSlice> available() const { return m_available; }
    std::vector<MatrixSlice> selected() const;
    void setSelected(const std::vector<MatrixSlice>& selected);
    QToolButton* button(const MatrixSlice& slice) const;

signals:
    void selectionChanged();

private:
    void rebuild();

    QHBoxLayout* m_buttons;
    QScrollArea* m_scroll;
    std::vector<MatrixSlice> m_available;
    std::vector<QToolButton*> m_toggles;
};

} // namespace rg
